"""The Porter2 ("English Snowball") stemmer, for the search's ASCII words.

Martin Porter's 2002 revision of his 1980 algorithm, as published with Snowball
(snowballstem.org/algorithms/english/stemmer.html): a word's forms meet at one stem
(``calculate``, ``calculation``, ``calculator`` → ``calcul``; ``cities`` → ``citi``;
``providers`` → ``provid``) and suffixes come off only where enough of the word is
left (its regions R1 and R2), so ``news``, ``topic`` and ``state`` keep their sense.
Written out here (a hundred lines, pure Python, no dependency); its output matches the
reference implementation's on every word of BFCL's catalog and questions.
"""

from __future__ import annotations

import re

__all__ = ["porter2"]

_VOWELS = frozenset("aeiouy")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDINGS = frozenset("cdeghkmnrt")
_EXCEPTIONS = {
    "skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
    "idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
    "singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
    "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}  # fmt: skip
# Words whose R1 starts after this prefix (Snowball 2's list).
_PREFIXES = ("gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter")
_AFTER_1A = frozenset(
    ("inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed", "evening")
)
_STEP2_TABLE = (  # longest first within each shared ending; (suffix, replacement)
    ("ization", "ize"), ("ational", "ate"), ("ogist", "og"), ("fulness", "ful"), ("ousness", "ous"),
    ("iveness", "ive"), ("tional", "tion"), ("biliti", "ble"), ("lessli", "less"),
    ("entli", "ent"), ("ation", "ate"), ("alism", "al"), ("aliti", "al"), ("ousli", "ous"),
    ("iviti", "ive"), ("fulli", "ful"), ("enci", "ence"), ("anci", "ance"),
    ("abli", "able"), ("izer", "ize"), ("ator", "ate"), ("alli", "al"), ("bli", "ble"),
    ("ogi", "og"), ("li", ""),
)  # fmt: skip
_STEP3_TABLE = (
    ("ational", "ate"), ("tional", "tion"), ("alize", "al"), ("icate", "ic"),
    ("iciti", "ic"), ("ative", ""), ("ical", "ic"), ("ness", ""), ("ful", ""),
)  # fmt: skip
_STEP4_TABLE = (
    "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti",
    "ous", "ive", "ize", "ion", "al", "er", "ic",
)  # fmt: skip


# Each table by its suffixes' last letter: a word is checked against a few, not all.
_STEP2 = {
    e: tuple(x for x in _STEP2_TABLE if x[0][-1] == e) for e in {x[0][-1] for x in _STEP2_TABLE}
}
_STEP3 = {
    e: tuple(x for x in _STEP3_TABLE if x[0][-1] == e) for e in {x[0][-1] for x in _STEP3_TABLE}
}
_STEP4 = {e: tuple(x for x in _STEP4_TABLE if x[-1] == e) for e in {x[-1] for x in _STEP4_TABLE}}


def porter2(word: str) -> str:
    """``word``'s Porter2 stem (``word`` lower-case ASCII letters)."""
    if len(word) <= 2:
        return word
    if word in _EXCEPTIONS:
        return _EXCEPTIONS[word]
    if "y" in word:  # an initial y, or a y after a vowel, is a consonant
        chars = list(word)
        for i, c in enumerate(chars):
            if c == "y" and (not i or chars[i - 1] in _VOWELS):
                chars[i] = "Y"
        word = "".join(chars)
    r1, r2 = _regions(word)
    word = _step1a(word)
    if word in _AFTER_1A:
        return word
    word = _step1b(word, r1)
    if len(word) > 2 and word[-1] in "yY" and word[-2] not in _VOWELS:
        word = word[:-1] + "i"  # step 1c
    word = _replace(word, _STEP2.get(word[-1], ()), r1, step2=True)
    word = _replace(word, _STEP3.get(word[-1], ()), r1, r2=r2)
    return _step5(_step4(word, r2), r1, r2).replace("Y", "y")


def _step4(word: str, r2: int) -> str:
    for suffix in _STEP4.get(word[-1], ()):
        if word.endswith(suffix):
            if len(word) - len(suffix) >= r2 and (suffix != "ion" or word[-4:-3] in ("s", "t")):
                return word[: -len(suffix)]
            return word
    return word


def _step5(word: str, r1: int, r2: int) -> str:
    if word.endswith("e"):
        if len(word) - 1 >= r2 or (len(word) - 1 >= r1 and not _short_syllable(word[:-1])):
            return word[:-1]
    elif word.endswith("ll") and len(word) - 1 >= r2:
        return word[:-1]
    return word


def _regions(word: str) -> tuple[int, int]:
    """Where R1 and R2 start: after the first non-vowel following a vowel (twice)."""
    if word.startswith(_PREFIXES):
        r1 = next(len(prefix) for prefix in _PREFIXES if word.startswith(prefix))
    else:
        r1 = _after_vowel_consonant(word, 0)
    return r1, _after_vowel_consonant(word, r1)


_VOWEL_CONSONANT = re.compile("[aeiouy][^aeiouy]")


def _after_vowel_consonant(word: str, start: int) -> int:
    """Just after the first non-vowel that follows a vowel at ``start`` or later."""
    found = _VOWEL_CONSONANT.search(word, start)
    return found.end() if found else len(word)


def _step1a(word: str) -> str:
    if not word.endswith(("s", "ied")):  # most words: one test, not four
        return word
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ied", "ies")):
        return word[:-2] if len(word) > 4 else word[:-1]
    if word.endswith(("us", "ss")):
        return word
    if word.endswith("s") and not _VOWELS.isdisjoint(word[:-2]):
        return word[:-1]
    return word


def _step1b(word: str, r1: int) -> str:
    if not word.endswith(("ed", "edly", "ing", "ingly")):  # most words: one test, not six
        return word
    for suffix in ("eedly", "eed"):
        if word.endswith(suffix):
            return word[: -len(suffix)] + "ee" if len(word) - len(suffix) >= r1 else word
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if _VOWELS.isdisjoint(base):
                return word
            if base.endswith(("at", "bl", "iz")):
                return base + "e"
            if base.endswith(_DOUBLES) and base[:-2] not in ("a", "e", "o"):
                return base[:-1]  # hopp → hop, but add, egg, off
            if r1 >= len(base) and _short_syllable(base):
                return base + "e"
            return base
    return word


def _short_syllable(word: str) -> bool:
    """Whether ``word`` ends in a short syllable (Porter2's definition)."""
    if len(word) == 2:
        return word[0] in _VOWELS and word[1] not in _VOWELS
    return (
        len(word) > 2
        and word[-3] not in _VOWELS
        and word[-2] in _VOWELS
        and word[-1] not in _VOWELS
        and word[-1] not in "wxY"
    )


def _replace(
    word: str, table: tuple[tuple[str, str], ...], r1: int, *, step2: bool = False, r2: int = 0
) -> str:
    """Step 2 or 3: the longest suffix of ``table`` that ends ``word``, if in R1."""
    for suffix, replacement in table:
        if word.endswith(suffix):
            if len(word) - len(suffix) < r1:
                return word
            if step2 and suffix == "li" and word[-3:-2] not in _LI_ENDINGS:
                return word
            if step2 and suffix == "ogi" and word[-4:-3] != "l":
                return word
            if suffix == "ative" and not step2 and len(word) - len(suffix) < r2:
                return word
            return word[: -len(suffix)] + replacement
    return word
