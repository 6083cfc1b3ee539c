//! G17.2, G17.6: a sampler that reads the GBNF text (rules, alternatives, sequences, groups,
//! literals, character classes, `*` `+` `?`) and draws random strings from it. Every sample must
//! validate, and the regex must match it: the two grammar texts describe one language.

use std::collections::HashMap;

use super::support::*;
use testkit::abi::summary_xml;

#[derive(Debug, Clone)]
enum Node {
    Literal(String),
    /// Inclusive code point ranges.
    Class(Vec<(u32, u32)>),
    Rule(String),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    /// `*` (0, unbounded), `+` (1, unbounded), `?` (0, 1).
    Repeat(Box<Node>, usize, bool),
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.s.get(self.i).is_some_and(|c| *c == ' ' || *c == '\t') {
            self.i += 1;
        }
    }

    fn escape(&mut self) -> char {
        let c = self.s[self.i];
        self.i += 1;
        let hex = |p: &mut Self, n: usize| {
            let digits: String = p.s[p.i..p.i + n].iter().collect();
            p.i += n;
            char::from_u32(u32::from_str_radix(&digits, 16).expect("hex escape")).expect("scalar")
        };
        match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'x' => hex(self, 2),
            'u' => hex(self, 4),
            'U' => hex(self, 8),
            other => other,
        }
    }

    fn char_in(&mut self) -> char {
        let c = self.s[self.i];
        self.i += 1;
        if c == '\\' { self.escape() } else { c }
    }

    fn alternatives(&mut self) -> Node {
        let mut alts = vec![self.sequence()];
        loop {
            self.skip_space();
            if self.s.get(self.i) == Some(&'|') {
                self.i += 1;
                alts.push(self.sequence());
            } else {
                break;
            }
        }
        if alts.len() == 1 { alts.pop().unwrap() } else { Node::Alt(alts) }
    }

    fn sequence(&mut self) -> Node {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            let Some(&c) = self.s.get(self.i) else { break };
            let atom = match c {
                '"' => {
                    self.i += 1;
                    let mut text = String::new();
                    while self.s[self.i] != '"' {
                        text.push(self.char_in());
                    }
                    self.i += 1;
                    Node::Literal(text)
                }
                '[' => {
                    self.i += 1;
                    let mut ranges = Vec::new();
                    assert_ne!(self.s[self.i], '^', "negated classes are not used");
                    while self.s[self.i] != ']' {
                        let lo = self.char_in();
                        let hi = if self.s[self.i] == '-' && self.s[self.i + 1] != ']' {
                            self.i += 1;
                            self.char_in()
                        } else {
                            lo
                        };
                        assert!(lo <= hi, "range {lo:?}-{hi:?}");
                        ranges.push((u32::from(lo), u32::from(hi)));
                    }
                    self.i += 1;
                    Node::Class(ranges)
                }
                '(' => {
                    self.i += 1;
                    let inner = self.alternatives();
                    self.skip_space();
                    assert_eq!(self.s[self.i], ')');
                    self.i += 1;
                    inner
                }
                c if c.is_ascii_lowercase() => {
                    let start = self.i;
                    while self.s.get(self.i).is_some_and(|c| c.is_ascii_lowercase() || *c == '-' || c.is_ascii_digit())
                    {
                        self.i += 1;
                    }
                    Node::Rule(self.s[start..self.i].iter().collect())
                }
                _ => break,
            };
            let node = match self.s.get(self.i) {
                Some('*') => Node::Repeat(Box::new(atom), 0, true),
                Some('+') => Node::Repeat(Box::new(atom), 1, true),
                Some('?') => Node::Repeat(Box::new(atom), 0, false),
                _ => {
                    items.push(atom);
                    continue;
                }
            };
            self.i += 1;
            items.push(node);
        }
        if items.len() == 1 { items.pop().unwrap() } else { Node::Seq(items) }
    }
}

/// The rules of a GBNF text (one rule per line, `#` comments).
fn parse(text: &str) -> HashMap<String, Node> {
    let mut rules = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (name, body) = line.split_once(" ::= ").expect("name ::= body");
        let chars: Vec<char> = body.chars().collect();
        let mut parser = Parser { s: &chars, i: 0 };
        let node = parser.alternatives();
        parser.skip_space();
        assert_eq!(parser.i, chars.len(), "rule {name}: unparsed text");
        assert!(rules.insert(name.to_owned(), node).is_none(), "rule {name} twice");
    }
    rules
}

fn sample(rules: &HashMap<String, Node>, node: &Node, rng: &mut Seeded, out: &mut String) {
    match node {
        Node::Literal(text) => out.push_str(text),
        Node::Class(ranges) => {
            let (lo, hi) = ranges[rng.below(ranges.len())];
            // The ends of each range a fifth of the time: the boundaries are where grammars err.
            let cp = match rng.below(10) {
                0 => lo,
                1 => hi,
                _ => lo + (rng.next() % u64::from(hi - lo + 1)) as u32,
            };
            out.push(char::from_u32(cp).expect("classes hold scalars only"));
        }
        Node::Rule(name) => sample(rules, &rules[name], rng, out),
        Node::Seq(items) => items.iter().for_each(|n| sample(rules, n, rng, out)),
        Node::Alt(alts) => sample(rules, &alts[rng.below(alts.len())], rng, out),
        Node::Repeat(inner, min, unbounded) => {
            let mut n = *min;
            // Long runs of text, short runs of everything else (leading zeros, separators).
            let p = if matches!(&**inner, Node::Rule(r) if r == "item") { 93 } else { 40 };
            while (*unbounded || n == 0) && n < 400 && rng.chance(p) {
                n += 1;
                if !*unbounded {
                    break;
                }
            }
            for _ in 0..n {
                sample(rules, inner, rng, out);
            }
        }
    }
}

#[test]
fn every_sample_of_the_gbnf_grammar_validates_and_matches_the_regex() {
    let rules = parse(grammar(ffi::LC_GRAMMAR_GBNF).unwrap());
    let re = regex();
    let mut rng = Seeded::new(0x5EED_0017);
    let (mut references, mut self_closed, mut bytes) = (0, 0, 0);
    for _ in 0..6000 {
        let mut out = String::new();
        sample(&rules, &rules["root"], &mut rng, &mut out);
        assert_eq!(summary_xml(out.as_bytes()), LC_OK, "{}: {out:?}", name(summary_xml(out.as_bytes())));
        assert!(re.is_match(&out), "the regex misses a GBNF sample: {out:?}");
        references += out.matches("&#").count();
        self_closed += out.matches("/>").count();
        bytes += out.len();
    }
    // The samples cover what the grammar allows, not only its shortest strings.
    assert!(references > 20_000 && self_closed > 3000 && bytes > 1_000_000, "{references} {self_closed} {bytes}");
}

/// The sampler's parser reads every rule the GBNF text refers to.
#[test]
fn every_rule_is_defined() {
    let rules = parse(grammar(ffi::LC_GRAMMAR_GBNF).unwrap());
    fn refs(node: &Node, out: &mut Vec<String>) {
        match node {
            Node::Rule(r) => out.push(r.clone()),
            Node::Seq(v) | Node::Alt(v) => v.iter().for_each(|n| refs(n, out)),
            Node::Repeat(n, _, _) => refs(n, out),
            _ => {}
        }
    }
    let mut used = Vec::new();
    rules.values().for_each(|n| refs(n, &mut used));
    for r in used {
        assert!(rules.contains_key(&r), "undefined rule {r}");
    }
}
