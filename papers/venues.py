"""Well-known venues: the full name a citation gives a venue the catalogue names by acronym
("ICLR 2024"), and back, so a citation we wrote reads back as the venue it was written from."""

from __future__ import annotations

import functools
import re

# Well-known venues by acronym (upper case) -> the name a citation gives. NeurIPS is cited by
# its proceedings' title, as its own BibTeX does.
VENUE_NAMES = {
    "AAAI": "AAAI Conference on Artificial Intelligence",
    "ACL": "Annual Meeting of the Association for Computational Linguistics",
    "AISTATS": "International Conference on Artificial Intelligence and Statistics",
    "COLING": "International Conference on Computational Linguistics",
    "COLM": "Conference on Language Modeling",
    "COLT": "Conference on Learning Theory",
    "CORL": "Conference on Robot Learning",
    "CVPR": "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
    "ECCV": "European Conference on Computer Vision",
    "EMNLP": "Conference on Empirical Methods in Natural Language Processing",
    "ICASSP": "IEEE International Conference on Acoustics, Speech and Signal Processing",
    "ICCV": "IEEE/CVF International Conference on Computer Vision",
    "ICLR": "International Conference on Learning Representations",
    "ICML": "International Conference on Machine Learning",
    "ICRA": "IEEE International Conference on Robotics and Automation",
    "IJCAI": "International Joint Conference on Artificial Intelligence",
    "IROS": "IEEE/RSJ International Conference on Intelligent Robots and Systems",
    "KDD": "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
    "MICCAI": (
        "International Conference on Medical Image Computing and Computer-Assisted Intervention"
    ),
    "NAACL": (
        "Conference of the North American Chapter of the Association for Computational Linguistics"
    ),
    "NEURIPS": "Advances in Neural Information Processing Systems",
    "NIPS": "Advances in Neural Information Processing Systems",
    "TMLR": "Transactions on Machine Learning Research",
    "SIGIR": (
        "International ACM SIGIR Conference on Research and Development in Information Retrieval"
    ),
    "UAI": "Conference on Uncertainty in Artificial Intelligence",
    "WACV": "IEEE/CVF Winter Conference on Applications of Computer Vision",
    "WWW": "The ACM Web Conference",
}
# A venue tag as the catalogue names venues: an acronym, optionally with its year.
_VENUE_TAG = re.compile(r"(?P<acronym>[A-Za-z]+)(?:[ -]?(?:19|20)\d{2})?")
# A year in a venue's name ("ICLR 2024", "NeurIPS 2023 Workshop").
_YEAR = re.compile(r"\b(19|20)\d{2}\b")
# A cited venue as venue_full_name writes it: "Full Name (ACRONYM YEAR)".
_CITED_VENUE = re.compile(r"(?P<full>.+?)\s*\((?P<venue>[^()]+)\)")


def venue_full_name(venue: str) -> str:
    """What a citation calls a venue: "ICLR 2024" -> "International Conference on Learning
    Representations (ICLR 2024)"; a venue we do not know keeps its name."""
    match = _VENUE_TAG.fullmatch(venue)
    full = VENUE_NAMES.get(match.group("acronym").upper()) if match else None
    return f"{full} ({venue})" if full else venue


def venue_from_citation(cited: str) -> str:
    """The venue a citation names, as the catalogue names it: the inverse of venue_full_name
    ("International Conference on Learning Representations (ICLR 2024)" -> "ICLR 2024");
    any other name is kept as written."""
    match = _CITED_VENUE.fullmatch(cited)
    if match is None:
        return cited
    venue = match.group("venue").strip()
    return venue if venue_full_name(venue).casefold() == cited.casefold() else cited


# --- Venues as reference managers write them (BibTeX booktitle/journal, RIS T2/JO) ---------
#
# Zotero, Google Scholar and the proceedings' own BibTeX name a venue by its long name
# ("Proceedings of the 40th International Conference on Machine Learning", "Advances in Neural
# Information Processing Systems 36"), or by its acronym joined to the year in a way of their
# own ("NeurIPS-2023"). The catalogue names venues as OpenReview and the other sources do,
# "NeurIPS 2023", and a venue tag is known by its name: each spelling would be a venue of its
# own. So a well-known venue becomes its acronym and year; any other is kept as written.

# Acronyms as the venues spell them, where that is not all capitals. NIPS keeps its old name:
# renaming the venues of old papers is not a reader's call.
_SPELLING = {"NEURIPS": "NeurIPS", "CORL": "CoRL"}
# Journals OpenReview names without a year ("TMLR"): a reference's year would make their
# papers' venue another tag than the same papers' from OpenReview.
_YEARLESS = frozenset({"TMLR"})
# Journals the catalogue names by acronym (OpenReview's journal workflow hosts TMLR, TACL and
# DMLR); any other venue is a journal when its name says so (is_journal).
_JOURNAL_ACRONYMS = frozenset({"TMLR", "TACL", "JMLR", "DMLR", "TPAMI"})
_JOURNAL_WORDS = re.compile(r"\b(?:journal|transactions)\b", re.IGNORECASE)
# Long names under which the venues are cited besides VENUE_NAMES' ones, as cleaned by
# _long_name_key. NeurIPS' own BibTeX says "Thirty-seventh Conference on Neural Information
# Processing Systems"; CVPR was an "IEEE Conference" until 2017 (the organisers are dropped).
_OTHER_LONG_NAMES = {
    "conference on neural information processing systems": "NeurIPS",
    "neural information processing systems": "NeurIPS",
    "trans. mach. learn. res.": "TMLR",  # the ISO abbreviation, as DBLP cites TMLR
}
# What precedes a long name: "Proceedings of the", "The", an edition ("40th", "Twelfth",
# "Thirty-seventh"), the year ("Proceedings of the 2023 Conference on ..."), the organisers
# ("IEEE/CVF", which some citations leave out).
_ORDINAL = (
    r"\d+(?:st|nd|rd|th)"
    r"|(?:(?:twenty|thirty|forty|fifty|sixty)[- ]?)?"
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)"
    r"|tenth|eleventh|twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth"
    r"|(?:twen|thir|for|fif|six)tieth"
)
_LONG_NAME_PREFIX = re.compile(
    rf"(?:proceedings of|the|(?:19|20)\d\d|{_ORDINAL}|(?:ieee|acm)(?:/\w+)?)\s+"
)
# What follows it: a volume number or year ("... Systems 36", "..., 2023") and a parenthesised
# acronym or volume ("(CVPR)", "(Volume 1: Long Papers)").
_LONG_NAME_SUFFIX = re.compile(r"(?:[\s,]+\d+|\s*\([^()]*\))$")
_YEAR_IN_NAME = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# "NeurIPS 2023", "NeurIPS-2023", "NeurIPS, 2023", "neurips": an acronym, maybe a year.
_SHORT_NAME = re.compile(r"(?P<acronym>[A-Za-z]+)(?:[\s,\-]*(?P<year>(?:19|20)\d\d))?")
# arXiv (or DBLP's CoRR) given as a journal: "arXiv preprint arXiv:2301.01234", "ArXiv",
# "arXiv e-prints", "CoRR abs/2301.01234". A preprint server is not a venue.
_PREPRINT_SERVER = re.compile(
    r"(?:arxiv|corr)(?:\s+(?:preprint|e-prints))?(?:[\s,:]+(?:arxiv:|abs/)?[\w./-]+)?",
    re.IGNORECASE,
)


# Longer than any venue name a reference manager writes ("Proceedings of the 2023 Conference on
# Empirical Methods in Natural Language Processing (Volume 1: Long Papers)" is 110 characters).
_LONGEST_KNOWN_NAME = 300


def _long_name_key(name: str) -> str:
    """A long venue name without what varies from one citation of it to the next."""
    key = " ".join(name.split()).casefold()
    while (shorter := _LONG_NAME_SUFFIX.sub("", key)) != key:
        key = shorter
    while match := _LONG_NAME_PREFIX.match(key):
        key = key[match.end() :]
    return key


_ACRONYMS = {acronym: _SPELLING.get(acronym, acronym) for acronym in VENUE_NAMES}
_LONG_NAMES = {
    _long_name_key(full): _ACRONYMS[acronym]
    for acronym, full in VENUE_NAMES.items()
    if acronym != "NIPS"  # its proceedings' title is NeurIPS' now
} | _OTHER_LONG_NAMES


def is_journal(venue: str) -> bool:
    """Whether a venue tag names a journal rather than a conference or workshop: "TMLR",
    "Journal of Machine Learning Research", "IEEE Transactions on Neural Networks"."""
    return venue.strip().upper() in _JOURNAL_ACRONYMS or _JOURNAL_WORDS.search(venue) is not None


def is_preprint_server(cited: str) -> bool:
    return _PREPRINT_SERVER.fullmatch(cited.strip()) is not None


def venue_from_reference(cited: str, year: int | None) -> str:
    """The venue tag a reference's booktitle or journal gives; `year` is the reference's.

    Our own export's "Full Name (ICLR 2024)" reads back as the venue it was written from
    (venue_from_citation). A well-known venue by its long name or acronym becomes "ACRONYM
    YEAR", the year the name's own if it has one, else the reference's ("Proceedings of the
    40th International Conference on Machine Learning" of 2023 -> "ICML 2023",
    "NeurIPS-2023" -> "NeurIPS 2023"). A preprint server is no venue (""). Anything else is
    kept as written.
    """
    cited = " ".join(cited.split())
    if len(cited) > _LONGEST_KNOWN_NAME:
        # No well-known venue's name is this long, and taking suffixes off one at a time
        # would cost time quadratic in the length of a hostile one.
        return cited
    if not cited or is_preprint_server(cited):
        return ""
    exported = venue_from_citation(cited)
    if exported != cited:
        return exported
    short = _SHORT_NAME.fullmatch(cited)
    acronym = _ACRONYMS.get(short["acronym"].upper()) if short else None
    if acronym is None:
        acronym = _LONG_NAMES.get(_long_name_key(cited))
    if acronym is None:
        return cited
    if acronym in _YEARLESS:
        return acronym
    named_year = _YEAR_IN_NAME.search(cited)
    if named_year:
        return f"{acronym} {named_year.group()}"
    return f"{acronym} {year}" if year else acronym


# A catalogue has a few hundred venues, and an export asks about each of its papers'.
@functools.lru_cache(maxsize=1024)
def venue_year(venue: str) -> int | None:
    """The year a venue's name gives ("ICLR 2024" -> 2024), None if it gives none."""
    match = _YEAR.search(venue)
    return int(match.group()) if match else None
