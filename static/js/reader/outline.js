// The sidebar's contents: the PDF's outline (its bookmarks), each entry a link to its page.

export async function showOutline(viewer, list) {
  let outline = null;
  try {
    outline = await viewer.pdf.getOutline();
  } catch (error) {
    console.warn("Reader: outline", error);
  }
  list.replaceChildren();
  if (!outline?.length) {
    const item = document.createElement("li");
    item.className = "muted";
    item.textContent = `This PDF has no outline; ${viewer.views.length} pages.`;
    list.append(item);
    return;
  }
  await appendEntries(viewer, list, outline);
}

async function appendEntries(viewer, list, entries) {
  for (const entry of entries) {
    const item = document.createElement("li");
    const page = await pageOf(viewer.pdf, entry.dest);
    const link = document.createElement(page ? "a" : "span");
    link.textContent = entry.title || "(untitled)";
    if (page) {
      link.href = `#page=${page}`;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        viewer.goToPage(page);
      });
    }
    item.append(link);
    if (entry.items?.length) {
      const sub = document.createElement("ol");
      await appendEntries(viewer, sub, entry.items);
      item.append(sub);
    }
    list.append(item);
  }
}

async function pageOf(pdf, dest) {
  try {
    const explicit = typeof dest === "string" ? await pdf.getDestination(dest) : dest;
    if (!Array.isArray(explicit)) return null;
    const [target] = explicit;
    return Number.isInteger(target) ? target + 1 : (await pdf.getPageIndex(target)) + 1;
  } catch {
    return null;
  }
}
