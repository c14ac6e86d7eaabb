"""The paper importer behind `manage.py import_papers`: parse, validate, load, report.

- records.py: PaperRecord, ImportFailed(file, line, message) and the per-record checks;
- formats.py: paths and directories (regular files only), decoding (UTF-8, BOM allowed),
  format detection;
- table_dump.py, abstract_list.py, jsonl.py, csv_reader.py, openreview.py, arxiv.py,
  bibtex.py, ris.py: one pure reader per format;
- safe_json.py: JSON decoding that refuses deep nesting and huge integers, never a traceback;
- tags.py: which imported tag is a venue, a track, a keyword or an area;
- sources.py: what a source supplied, as the three-way merge per source compares it;
- loader.py: batched matching (forum id, arXiv id, DOI, abstract) and writes;
  bulk_rows.py: rows inserted without an ORM object per value; report.py: counts, conflicts,
  progress bar;
- pipeline.py: import_paths() for files and import_records() for records fetched from a
  service (papers.sources): one stream of validated records loaded in one transaction, rolled
  back whole when any input is bad.
"""
