"""Browsing pages. Each view reads like the page's recipe; queries live in querysets."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from papers.models import Author, Paper, Tag

PAGE_SIZE = 25


def paper_list(request: HttpRequest) -> HttpResponse:
    papers = Paper.objects.for_listing().order_by("-created_at", "-pk")
    page = Paginator(papers, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "papers/paper_list.html", {"page": page})


def paper_detail(request: HttpRequest, pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.with_people_and_tags(), pk=pk)
    return render(request, "papers/paper_detail.html", {"paper": paper})


def author_detail(request: HttpRequest, pk: int) -> HttpResponse:
    author = get_object_or_404(Author, pk=pk)
    papers = Paper.objects.for_listing().filter(authorships__author=author)
    page = Paginator(papers, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "papers/author_detail.html", {"author": author, "page": page})


def tag_detail(request: HttpRequest, kind: str, slug: str) -> HttpResponse:
    tag = get_object_or_404(Tag, kind=kind, slug=slug)
    papers = Paper.objects.for_listing().filter(paper_tags__tag=tag)
    page = Paginator(papers, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "papers/tag_detail.html", {"tag": tag, "page": page})
