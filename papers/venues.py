"""Well-known venues: the full name a citation gives a venue the catalogue names by acronym
("ICLR 2024"), and back, so a citation we wrote reads back as the venue it was written from."""

from __future__ import annotations

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
    "SIGIR": (
        "International ACM SIGIR Conference on Research and Development in Information Retrieval"
    ),
    "UAI": "Conference on Uncertainty in Artificial Intelligence",
    "WACV": "IEEE/CVF Winter Conference on Applications of Computer Vision",
    "WWW": "The ACM Web Conference",
}
# A venue tag as the catalogue names venues: an acronym, optionally with its year.
_VENUE_TAG = re.compile(r"(?P<acronym>[A-Za-z]+)(?:[ -]?(?:19|20)\d{2})?")
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
