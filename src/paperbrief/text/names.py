"""The names a sentence attaches to its numbers: models, datasets, metrics, baselines.

A name is a Latin token that a reader would call a proper name in a Chinese or English
digest: it has a capital letter after its first character, a digit, or ``-``/``@``/``_``/``.``
inside (``PaSa-7b``, ``GPT-4o``, ``RealScholarQuery``, ``Recall@20``, ``BLEU``, ``R-1``), or it
is a run of capitalised words (``Google Scholar``), or two names joined by "with" (``Google
with GPT-4o``: one system built of two, a row label of its own). Sentence-initial function
words (``The``, ``We``), labels (``Table``, ``Section``), units and citation ids are not
names. ``name_key``
folds a name for matching (case, hyphens and spaces ignored: ``PaSa-7B`` = ``pasa 7b``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.@/+][A-Za-z0-9]+)*(?:@\d+)?")
_STOP_WORDS = """
    a an the we our us they their it its this that these those in on of for to and or but
    with without by from as at is are was were be been being has have had do does did not no
    yes if then than so such via per each all any both either neither more most less fewer
    many much some other another one two three four five six seven eight nine ten table
    tables figure figures fig section sections appendix eq equation page pp et al i e g ie
    eg vs cf also only however while whereas although because since thus hence here there
    when where which who whom whose what how why can could may might will would should must
    shall new first second third finally overall compared against over under above below
    between among across within after before during about around approximately nearly
    roughly up down out into onto upon
"""
_STOP = frozenset(_STOP_WORDS.split())
STOP_WORDS = _STOP  # function words: never a name, nor what tells two things apart
_UNIT_WORDS_TEXT = (
    "pp pt pts x s ms min h hr hrs k m b kb mb gb tb usd rmb cny eur gbp percent points"
)
_UNIT_WORDS = frozenset((_UNIT_WORDS_TEXT + " point times fold").split())
_CITATION_ID = re.compile(r"^(?:E\d+|T[A-Z]?\d+[a-z]?\.r\d+\.c\d+)$")


class Name(NamedTuple):
    text: str
    start: int
    end: int


def _is_name(token: str) -> bool:
    lower = token.lower()
    if lower in _STOP or lower in _UNIT_WORDS or _CITATION_ID.match(token):
        return False
    if len(token) < 2:
        return False
    inner_capital = any(char.isupper() for char in token[1:])
    capital = token[0].isupper() or inner_capital
    return (
        inner_capital
        or any(char.isdigit() for char in token)
        or (capital and any(char in "-_.@/+" for char in token[1:-1]))
        or (token[0].isupper() and len(token) >= 3)
    )  # "free-form", "risk-seeking" are words, not names


def names_in(text: str) -> list[Name]:
    """Every name of ``text`` in order; adjacent capitalised words join (``Google Scholar``)."""
    names: list[Name] = []
    for match in _TOKEN.finditer(text):
        token = match.group(0).rstrip(".")
        start, end = match.start(), match.start() + len(token)
        before = text[start - 1] if start else ""
        if before.isdigit() or (before.isalpha() and before.isascii()):
            continue
        if not _is_name(token):
            continue
        if names and text[names[-1].end : start] == " with " and _is_name(names[-1].text):
            # "Google with GPT-4o": one system (a baseline built of two), one name
            names[-1] = Name(text[names[-1].start : end], names[-1].start, end)
            continue
        titlecase = token[0].isupper() and token[1:].islower() and token.isalpha()
        followed = re.match(r" [A-Z]", text[end : end + 2]) is not None
        if titlecase and _sentence_start(text, start) and not followed:
            continue  # "Results show …": a capital that only starts the sentence
        if names and token[0].isupper() and titlecase:
            last = names[-1]
            gap = text[last.end : start]
            # "Google Scholar", "Make Me Say": capitalised words joined (a short one between)
            joined = gap == " " or re.fullmatch(r" [A-Z][a-z]? ", gap) is not None
            if joined and last.text[0].isupper():
                names[-1] = Name(text[last.start : end], last.start, end)
                continue
        names.append(Name(token, start, end))
    return names


def _sentence_start(text: str, start: int) -> bool:
    head = text[:start].rstrip(' "“(')
    return not head or head[-1] in ".!?。！？；;:\n•*-"


# Words that name a *kind* of model or method, not one model, dataset or baseline: a digest
# may describe the paper's models as "seq2seq 模型" or "无 CoT" without the paper using the
# word, and no kind can be an invented or wrong baseline.
_KIND_TERMS = """
    seq2seq encoderdecoder decoderonly encoderonly transformer transformers cot lora qlora
    peft rlhf rlaif sft rag moe llm llms lm lms vlm vlms mllm mllms slm slms nlp nlu nlg ir
    ml dl ai agi api apis gpu gpus cpu cpus tpu ood sota mlp cnn rnn lstm gnn gan vae rl icl
    ocr asr tts qa kv ner pos mt mc mcmc
"""
KIND_TERMS = frozenset(_KIND_TERMS.split())
_LIST_TAIL = r"(?:\d{1,3}|[A-Z]{1,2})\b"
_LIST_FORM = re.compile(rf"\b([A-Za-z][A-Za-z]+)-({_LIST_TAIL})((?:\s?,\s?{_LIST_TAIL}){{1,6}})")


def name_parts(name: str) -> list[str]:
    """A composite name's parts, each a name to check: "LLM+IR" → LLM, IR; "R-1/R-2/BS" →
    R-1, R-2, BS (a model name's own slash or plus stays whole when it is its only one)."""
    parts = [p for p in re.split(r"[/+]", name) if p]
    return parts if len(parts) > 1 else [name]


def spelled_lists(text: str) -> str:
    """A stem's list written once, spelled out: "Rouge-1,2,L" → "Rouge-1 Rouge-2 Rouge-L"."""

    def spell(match: re.Match[str]) -> str:
        stem = match.group(1)
        tails = [match.group(2), *(t.strip() for t in match.group(3).split(",") if t.strip())]
        return " ".join(f"{stem}-{tail}" for tail in tails)

    return _LIST_FORM.sub(spell, text)


def name_key(text: str) -> str:
    """A name folded for matching: lower case, letters, digits and CJK only."""
    return "".join(char for char in text.lower() if char.isalnum())


# A metric's names across the digest's languages: "精度也更高" speaks of a "Precision" column.
_METRIC_NAMES = {
    "precision": ("precision", "精度", "精确率", "查准率"),
    "recall": ("recall", "召回", "召回率", "查全率"),
    "accuracy": ("accuracy", "acc", "准确率", "正确率"),
    "f1": ("f1", "f1值"),
    "error": ("error", "误差", "错误率"),
    "latency": ("latency", "延迟", "时延"),
    "loss": ("loss", "损失"),
}


def metric_of(text: str) -> str:
    """The metric ``text`` names, as one folded name ("Precision", "精度" → "precision"), or
    "" when it names none or several."""
    key = name_key(text)
    found = {
        metric
        for metric, spellings in _METRIC_NAMES.items()
        if any(key == s or key.startswith(s) and not key[len(s) :].isalpha() for s in spellings)
    }
    return found.pop() if len(found) == 1 else ""
