"""SPEC §17.1-§17.2 through real consumers: lark and llguidance compile the Lark grammar,
llguidance the regex and (through its GBNF reader) the GBNF grammar, Python's ``re`` the regex, and
``jsonschema`` the schema. Thousands of summaries sampled from the Lark grammar (a sampler that
walks the rules lark read and the terminals' regex syntax trees) must validate and be accepted by
every consumer; near-misses the validator rejects must be refused by all of them."""

from __future__ import annotations

import functools
import json
import random
import re
import sys
from typing import Any, Callable, Dict, List, Tuple

import jsonschema  # type: ignore[import-untyped]  # no stubs in the pinned test deps
import lark
import llguidance
import pytest
from llguidance import LLMatcher, LLTokenizer, TokenizerWrapper
from llguidance.gbnf_to_lark import gbnf_to_lark

import loopcompact as lc

if sys.version_info >= (3, 11):
    from re import _constants as sre_c, _parser as sre_parse
else:  # pragma: no cover
    import sre_constants as sre_c
    import sre_parse

LARK = lc.summary_grammar("lark")
REGEX = lc.summary_grammar("regex")
GBNF = lc.summary_grammar("gbnf")


def valid(xml: str) -> bool:
    try:
        lc.validate_summary(xml.encode("utf-8", "surrogatepass"))
    except lc.SummaryError:
        return False
    return True


class _ByteTokenizer:
    """One token per byte and an end token: the matcher then decides on exactly the bytes."""

    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids = [256]

    def __call__(self, s: Any) -> List[int]:
        return list(s.encode() if isinstance(s, str) else s)


TOKENIZER = LLTokenizer(TokenizerWrapper(_ByteTokenizer()))
LL_GRAMMARS = {
    "lark": LLMatcher.grammar_from_lark(LARK),
    "regex": LLMatcher.grammar_from_regex(REGEX),
    "gbnf": LLMatcher.grammar_from_lark(gbnf_to_lark(GBNF)),
}


def ll_accepts(grammar: str, text: str) -> bool:
    matcher = LLMatcher(TOKENIZER, grammar, log_level=0)
    return matcher.consume_tokens(list(text.encode("utf-8", "surrogatepass"))) and matcher.is_accepting()


LALR = lark.Lark(LARK, parser="lalr")
RE = re.compile(REGEX)


def lark_accepts(text: str) -> bool:
    try:
        LALR.parse(text)
    except lark.exceptions.LarkError:
        return False
    return True


# ---- a sampler over the Lark grammar --------------------------------------------------------------

def _sample_regex(tree: Any, rng: random.Random, out: List[str]) -> None:
    for op, av in tree:
        if op is sre_c.LITERAL:
            out.append(chr(av))
        elif op is sre_c.IN:
            choices = [(a, a) if o is sre_c.LITERAL else a for o, a in av]
            assert all(o in (sre_c.LITERAL, sre_c.RANGE) for o, _ in av), "no negated classes"
            lo, hi = rng.choice(choices)
            pick = rng.randrange(10)
            out.append(chr(lo if pick == 0 else hi if pick == 1 else rng.randint(lo, hi)))
        elif op is sre_c.SUBPATTERN:
            _sample_regex(av[3], rng, out)
        elif op is sre_c.BRANCH:
            _sample_regex(rng.choice(av[1]), rng, out)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            low, high, sub = av
            n = low
            # Long runs of text, short runs of leading zeros and separators.
            p = 0.93 if len(str(sub)) > 400 else 0.4
            while n < min(high, low + 300) and rng.random() < p:
                n += 1
            for _ in range(n):
                _sample_regex(sub, rng, out)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected regex node {op}")


class LarkSampler:
    def __init__(self, parser: lark.Lark) -> None:
        self.rules: Dict[str, List[Any]] = {}
        for rule in parser.rules:
            self.rules.setdefault(rule.origin.name, []).append(rule.expansion)
        # Each terminal as its literal string or its regex's parse tree, parsed once (parsing the
        # long character classes for every sample made building them take a minute).
        self.terminals: Dict[str, Any] = {
            t.name: t.pattern.value if t.pattern.type == "str" else sre_parse.parse(t.pattern.value)
            for t in parser.terminals
        }

    def sample(self, rng: random.Random, symbol: str = "start") -> str:
        out: List[str] = []
        self._symbol(symbol, rng, out)
        return "".join(out)

    def _symbol(self, name: str, rng: random.Random, out: List[str]) -> None:
        if name in self.terminals:
            terminal = self.terminals[name]
            if isinstance(terminal, str):
                out.append(terminal)
            else:
                _sample_regex(terminal, rng, out)
            return
        for sym in rng.choice(self.rules[name]):
            self._symbol(sym.name, rng, out)


@functools.lru_cache(maxsize=None)
def samples() -> Tuple[str, ...]:
    """3,000 summaries drawn from the Lark grammar, built on first use (not at import)."""
    sampler = LarkSampler(lark.Lark(LARK, parser="lalr", keep_all_tokens=True))
    return tuple(sampler.sample(random.Random(seed)) for seed in range(3000))


def test_lark_samples_validate_and_every_consumer_accepts_them() -> None:
    drawn = samples()
    assert sum(len(s) for s in drawn) > 300_000 and sum(s.count("&#") for s in drawn) > 5000
    earley = lark.Lark(LARK)  # Lark's default parser, on a few (it is slower)
    for i, sample in enumerate(drawn):
        assert valid(sample), sample
        assert RE.fullmatch(sample), sample
        assert lark_accepts(sample), sample
        if i % 30 == 0:
            earley.parse(sample)
            for name, grammar in LL_GRAMMARS.items():
                assert ll_accepts(grammar, sample), (name, sample)


def test_the_grammars_compile_without_warnings() -> None:
    for name, grammar in LL_GRAMMARS.items():
        assert LLMatcher.validate_grammar_with_warnings(grammar, TOKENIZER) == (False, []), name


def _valid_vectors() -> List[str]:
    from helpers import VECTORS, load_rows
    return [r["xml"] for r in load_rows(VECTORS / "summary_xml.jsonl") if r["expect"] == "ok" and "xml" in r]


def test_near_misses_the_validator_rejects_are_refused_by_every_consumer() -> None:
    rng = random.Random(29)
    bases = _valid_vectors() + list(samples()[:40])
    mutants: List[str] = []
    for base in bases:
        mutants += ["\n" + base, base + "\n", "```xml\n" + base + "\n```", "\ufeff" + base]
        for _ in range(25):
            i = rng.randrange(len(base) + 1)
            edit = rng.choice(["&", "<", ">", "\0", "]]>", "&#0;", "&amp", "\r", "</goal>", "DROP"])
            mutants.append(base[:i] + base[i + 1:] if edit == "DROP" else base[:i] + edit + base[i:])
    refused = 0
    for i, mutant in enumerate(mutants):
        if valid(mutant):
            continue
        refused += 1
        assert not RE.fullmatch(mutant), mutant
        assert not lark_accepts(mutant), mutant
        if i % 4 == 0:
            for name, grammar in LL_GRAMMARS.items():
                assert not ll_accepts(grammar, mutant), (name, mutant)
    assert refused > len(mutants) // 2


def test_valid_vectors_inside_the_subset_are_accepted() -> None:
    outside = 0
    for xml in _valid_vectors():
        inside = bool(RE.fullmatch(xml))
        assert lark_accepts(xml) == inside, xml
        for name, grammar in LL_GRAMMARS.items():
            assert ll_accepts(grammar, xml) == inside, (name, xml)
        outside += not inside
    assert outside == 4  # the four named in tests/grammar/regex.rs (G17.3)


# ---- the schema and the renderer --------------------------------------------------------------------

SCHEMA = json.loads(lc.summary_json_schema())
FIELDS = ("goal", "constraints", "decisions", "state", "open_items")


def test_the_schema_is_a_draft_2020_12_schema_of_five_strings() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert validator.is_valid({f: "x" for f in FIELDS})
    assert not validator.is_valid({f: "x" for f in FIELDS[:4]})
    assert not validator.is_valid({**{f: "x" for f in FIELDS}, "extra": "y"})
    assert not validator.is_valid({**{f: "x" for f in FIELDS}, "goal": 1})


ALPHABET = list("abc XYZ 09 &<>\"';#]\r\n\t") + ["\u00a0", "\u3000", "\u2028", "\u0085", "\u200b", "é", "中",
                                                  "🚀", "\u007f", "\u0080", "\ufffd", "\U0010ffff"]
#: Characters XML cannot carry (X4.8), put into one object in five.
NON_CHARS = ["\0", "\x01", "\x0b", "\x1f", "\ufffe", "\uffff"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 24)))


def test_generated_objects_render_to_valid_summaries_with_their_sections() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    rng = random.Random(17)
    rendered = refused_blank = refused_char = 0
    for _ in range(4000):
        obj = {f: _text(rng) for f in FIELDS}
        if rng.randrange(5) == 0:
            field = rng.choice(FIELDS)
            obj[field] += rng.choice(NON_CHARS)
        assert validator.is_valid(obj)
        bad_char = any(re.search("[\0-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", v) for v in obj.values())
        blank = not obj["goal"].strip() or not obj["state"].strip()
        try:
            xml = lc.render_summary(**obj)
        except lc.SummaryError as e:
            assert bad_char or blank, obj
            assert e.status in (lc.Status.SUMMARY_XML_SYNTAX, lc.Status.SUMMARY_XML_CONTENT)
            refused_char += e.status == lc.Status.SUMMARY_XML_SYNTAX
            refused_blank += e.status == lc.Status.SUMMARY_XML_CONTENT
            continue
        assert not bad_char and not blank, obj
        lc.validate_summary(xml)
        for section, field in zip((lc.Section.GOAL, lc.Section.CONSTRAINTS, lc.Section.DECISIONS,
                                   lc.Section.STATE, lc.Section.OPEN_ITEMS), FIELDS):
            assert lc.summary_section_text(xml, section) == obj[field]
        rendered += 1
    assert rendered > 500 and refused_blank > 50 and refused_char > 300, (rendered, refused_blank, refused_char)


def test_render_refuses_and_checks_its_arguments() -> None:
    with pytest.raises(lc.SummaryError) as e:
        lc.render_summary(goal="g", constraints="\ud800", decisions="", state="s", open_items="")
    assert e.value.status == lc.Status.SUMMARY_XML_SYNTAX
    with pytest.raises(TypeError):
        lc.render_summary(goal=b"g", constraints="", decisions="", state="s", open_items="")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        lc.summary_grammar("ebnf")
