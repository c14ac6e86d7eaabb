"""Greek letters as the index and the search box meet them.

LaTeX writes "$\\alpha$TC-VAE", which the tokenizer reads as "alpha tc vae"; a title imported
as Unicode text ("αTC-VAE") would be the single word "αtc"; readers type "αTC-VAE",
"alpha-TC-VAE" or "alphaTC-VAE". Everything meets at the LaTeX names as words of their own:
the index adds a title's Unicode letters spelled so (documents.make_document), and a search
also looks for its Unicode letters spelled so and for a name glued to what follows it split
off ("alphatc" -> "alpha tc").
"""

from __future__ import annotations

import re

# Greek letters by the names LaTeX gives them.
GREEK_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "ο": "omicron", "π": "pi", "ϖ": "pi",
    "ρ": "rho", "ϱ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "Γ": "gamma", "Δ": "delta", "Θ": "theta", "Λ": "lambda", "Ξ": "xi", "Π": "pi",
    "Σ": "sigma", "Υ": "upsilon", "Φ": "phi", "Ψ": "psi", "Ω": "omega",
}  # fmt: skip
_SPELLED = str.maketrans({letter: f" {name} " for letter, name in GREEK_NAMES.items()})
# A name at the start of a word with more letters or digits after it. Longest names first, so
# "beta" is not read as "b" + ... and "theta" not as "th" + "eta" (the match is anchored anyway).
_NAMES = sorted(set(GREEK_NAMES.values()), key=len, reverse=True)
_GLUED = re.compile(rf"({'|'.join(_NAMES)})([^\W_]+)")


def spelled_letters(text: str) -> str:
    """`text` with each Greek letter replaced by its LaTeX name as a word of its own
    ("αTC-VAE" -> " alpha TC-VAE"); `text` itself when it has none."""
    return text.translate(_SPELLED)


def split_glued_names(words: tuple[str, ...]) -> tuple[str, ...]:
    """Lowercase `words` with a leading Greek name split from the rest ("alphatc" -> "alpha",
    "tc"; "pi2vec" -> "pi", "2vec"). A word such as "pixel" splits too ("pi", "xel"): only
    an alternative to the word as typed, it costs a phrase lookup that finds nothing."""
    split: list[str] = []
    for word in words:
        glued = _GLUED.fullmatch(word)
        split += glued.groups() if glued else [word]
    return tuple(split)
