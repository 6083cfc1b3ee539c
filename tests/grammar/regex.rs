//! G17.2–G17.4: the regex against the validator.

use super::support::*;
use testkit::abi::summary_xml;
use testkit::vectors;

/// Valid vectors outside the subset, each with the G17.3 clause that leaves it out (read off the
/// vector, not off a run).
const OUTSIDE: [(&str, &str); 4] = [
    ("raw C1 control U+0080 in goal", "raw DEL and C1 controls"),
    ("EM SPACE between sections", "separators other than SP, TAB, LF"),
    ("newline inside start tag", "white space inside tags"),
    ("double hyphen and PI close in text", "raw >"),
];

#[test]
fn every_valid_vector_inside_the_subset_matches() {
    let re = regex();
    let mut inside = 0;
    for row in vectors::rows("summary_xml.jsonl") {
        if row["expect"] != "ok" {
            continue;
        }
        let xml = vectors::bytes_field(&row, "xml").unwrap();
        let name = vectors::name(&row);
        let text = std::str::from_utf8(&xml).expect("valid vectors are UTF-8");
        let outside = OUTSIDE.iter().any(|(n, _)| *n == name);
        assert_eq!(re.is_match(text), !outside, "{name}");
        inside += usize::from(!outside);
    }
    assert!(inside >= 20, "{inside}");
}

/// What a summariser writes (G17.2): prose with the five escapes, references, newlines, blank and
/// self-closed optional sections, separators.
#[test]
fn what_a_summariser_needs_matches() {
    let re = regex();
    let cases = [
        "<conversation_summary><goal>Fix the &lt;b&gt; tag &amp; the &quot;quote&quot; &apos;s</goal><constraints/><decisions/><state>done</state><open_items/></conversation_summary>",
        "<conversation_summary>\n  <goal>line one\nline two\ttab</goal>\n  <constraints>\n\n</constraints>\n  <decisions></decisions>\n  <state>&#x2014; &#8212; &#x1F600; &#0065;</state>\n  <open_items>  </open_items>\n</conversation_summary>",
        "<conversation_summary><goal>&#x20;&#10;x</goal><constraints>a ]] b</constraints><decisions/><state>\u{3000}中文 ✓ 🚀</state><open_items/></conversation_summary>",
        "<conversation_summary><goal>&#x41;</goal><constraints/><decisions/><state>&#126;</state><open_items/></conversation_summary>",
    ];
    for case in cases {
        assert_eq!(summary_xml(case.as_bytes()), LC_OK, "{case:?}");
        assert!(re.is_match(case), "{case:?}");
    }
}

/// Strings §4 rejects, and strings it accepts that G17.3 leaves out: never matched.
#[test]
fn hand_written_near_misses_never_match() {
    let re = regex();
    let ok = |body: &str| format!("<conversation_summary>{body}</conversation_summary>");
    let rest = "<constraints/><decisions/><state>s</state><open_items/>";
    let rejected = [
        // Blank goal (X4.20), including through references to White_Space.
        ok(&format!("<goal> </goal>{rest}")),
        ok(&format!("<goal>&#x20;&#10;&#160;&#xA0;&#x3000;</goal>{rest}")),
        ok(&format!("<goal>\u{a0}\u{2003}</goal>{rest}")),
        // References §4 rejects.
        ok(&format!("<goal>&nbsp;</goal>{rest}")),
        ok(&format!("<goal>&#0;</goal>{rest}")),
        ok(&format!("<goal>&#xD800;</goal>{rest}")),
        ok(&format!("<goal>&#xFFFE;</goal>{rest}")),
        ok(&format!("<goal>&#x110000;</goal>{rest}")),
        ok(&format!("<goal>&#X41;</goal>{rest}")),
        ok(&format!("<goal>a & b</goal>{rest}")),
        ok(&format!("<goal>x]]>y</goal>{rest}")),
        ok(&format!("<goal>x\u{0}</goal>{rest}")),
        ok(&format!("<goal>x\u{b}</goal>{rest}")),
        ok(&format!("<goal>x\u{ffff}</goal>{rest}")),
        // Structure.
        format!("\n{}", ok(&format!("<goal>g</goal>{rest}"))),
        format!("{}\n", ok(&format!("<goal>g</goal>{rest}"))),
        format!("```xml\n{}\n```", ok(&format!("<goal>g</goal>{rest}"))),
        ok("<goal>g</goal><constraints/><decisions/><state>s</state>"),
        ok("<goal>g</goal><decisions/><constraints/><state>s</state><open_items/>"),
        ok(&format!("<goal>g</goal>x{rest}")),
        ok(&format!("<goal>g<b>x</b></goal>{rest}")),
        ok(&format!("<goal/>{rest}")),
        ok("<goal>g</goal><constraints/><decisions/><state/><open_items/>"),
        "<conversation_summary/>".to_owned(),
        String::new(),
    ];
    for case in &rejected {
        assert_ne!(summary_xml(case.as_bytes()), LC_OK, "{case:?}");
        assert!(!re.is_match(case), "{case:?}");
    }
    // Valid, but outside the subset (G17.3): still never matched.
    let outside = [
        ok(&format!("<goal>a > b</goal>{rest}")),
        ok(&format!("<goal>a\rb</goal>{rest}")),
        ok(&format!("<goal>a\u{7f}</goal>{rest}")),
        ok(&format!("<goal >g</goal>{rest}")),
        ok(&format!("<goal>&#200;</goal>{rest}")),
        ok(&format!("<goal>&#60000;x</goal>{rest}")),
        ok(&format!("\u{2003}<goal>g</goal>{rest}")),
    ];
    for case in &outside {
        assert_eq!(summary_xml(case.as_bytes()), LC_OK, "{case:?}");
        assert!(!re.is_match(case), "{case:?}");
    }
}

/// Mutations of every valid vector and of the hand-written summaries (the red-team edits: a
/// dropped byte, an inserted `&`, `<`, `>`, NUL or `]]>`, a fence, a leading or trailing newline,
/// a duplicated or dropped section): whenever the regex matches, the validator accepts.
#[test]
fn mutations_never_match_unless_valid() {
    let re = regex();
    let mut bases: Vec<String> = vectors::rows("summary_xml.jsonl")
        .iter()
        .filter(|row| row["expect"] == "ok")
        .filter_map(|row| String::from_utf8(vectors::bytes_field(row, "xml").unwrap()).ok())
        .collect();
    bases.push(
        "<conversation_summary>\n<goal>g &amp; &#x41;</goal>\n<constraints>c</constraints>\n<decisions/>\n<state>s</state>\n<open_items>o</open_items>\n</conversation_summary>"
            .to_owned(),
    );
    let (mut checked, mut matched_valid, mut rejected) = (0usize, 0usize, 0usize);
    for base in &bases {
        let mut mutants = vec![
            format!("\n{base}"),
            format!("{base}\n"),
            format!(" {base}"),
            format!("```\n{base}\n```"),
            format!("\u{feff}{base}"),
        ];
        let boundaries: Vec<usize> = (0..=base.len()).filter(|&i| base.is_char_boundary(i)).collect();
        for &i in &boundaries {
            for insert in ["&", "<", ">", "\u{0}", "]]>", "&#0;", "&amp", "\r", "</goal>", "<goal>"] {
                mutants.push(format!("{}{insert}{}", &base[..i], &base[i..]));
            }
        }
        for pair in boundaries.windows(2) {
            mutants.push(format!("{}{}", &base[..pair[0]], &base[pair[1]..]));
        }
        for section in ["constraints", "decisions", "open_items"] {
            mutants.push(base.replacen(&format!("<{section}/>"), "", 1));
            mutants.push(base.replacen(&format!("<{section}/>"), &format!("<{section}/><{section}/>"), 1));
        }
        for mutant in &mutants {
            checked += 1;
            let valid = summary_xml(mutant.as_bytes()) == LC_OK;
            if re.is_match(mutant) {
                assert!(valid, "the regex matches an invalid summary: {mutant:?}");
                matched_valid += 1;
            } else if !valid {
                rejected += 1;
            }
        }
    }
    // The mutations exercise both sides: many are rejected, some stay valid and inside.
    assert!(checked > 40_000 && rejected > checked / 2 && matched_valid > 1000, "{checked} {rejected} {matched_valid}");
}
