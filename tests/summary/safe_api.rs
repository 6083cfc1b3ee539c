//! The safe API: its statuses and offsets, and that it is pure (X4.22).

use super::support::*;

// (3) The safe API and its offsets

#[test]
fn safe_api_statuses_and_offsets() {
    assert_eq!(validate(&goal("x")), Ok(()));
    assert_eq!(validate(&corpus::summary(4096)), Ok(()));

    let err = |xml: &[u8]| validate(xml).expect_err("must fail");
    let at = |xml: &[u8]| {
        let e = err(xml);
        (e.status(), e.offset())
    };

    // End of input: the input length.
    assert_eq!(at(b""), (Status::SummaryXmlRoot, Some(0)));
    let open = b"<conversation_summary><goal>x";
    assert_eq!(at(open), (Status::SummaryXmlSyntax, Some(open.len())));
    let blank = goal(" ");
    assert_eq!(at(&blank), (Status::SummaryXmlContent, Some(blank.len())));

    // A rejected token: its first byte.
    assert_eq!(at(b"<summary/>"), (Status::SummaryXmlRoot, Some(0)));
    assert_eq!(at(b"\n<conversation_summary/>"), (Status::SummaryXmlStructure, Some(0)));
    let prefix = b"<conversation_summary><goal>x</goal>";
    let xml = cat(&[prefix, b"<state>y</state>"]);
    assert_eq!(at(&xml), (Status::SummaryXmlStructure, Some(prefix.len())));
    let xml = cat(&[prefix, b"<!---->"]);
    assert_eq!(at(&xml), (Status::SummaryXmlStructure, Some(prefix.len())));
    let xml = after("tail");
    assert_eq!(at(&xml), (Status::SummaryXmlStructure, Some(goal("x").len())));

    // A syntax error: where it was found.
    let head = b"<conversation_summary><goal>ab";
    assert_eq!(at(&cat(&[head, b"\x00cd</goal>"])), (Status::SummaryXmlSyntax, Some(head.len())));
    assert_eq!(at(&cat(&[head, b"\xffcd</goal>"])), (Status::SummaryXmlSyntax, Some(head.len())));
    assert_eq!(at(&cat(&[head, b"&bogus;</goal>"])), (Status::SummaryXmlSyntax, Some(head.len())));
    assert_eq!(at(&cat(&[head, b"]]></goal>"])), (Status::SummaryXmlSyntax, Some(head.len())));
    // An end tag that does not match: the tag's `<`.
    assert_eq!(at(&cat(&[head, b"</state>"])), (Status::SummaryXmlSyntax, Some(head.len())));

    // X4.3: the first marker, even after an earlier problem.
    let xml = b"\x00 <![CDATA[ <![CDATA[";
    assert_eq!(at(xml), (Status::SummaryXmlStructure, Some(2)));

    // The error carries no input bytes: its message is the status message plus the offset.
    let e = err(b"<summary/>");
    assert_eq!(e.to_string(), format!("{} (at byte 0)", e.status()));
}

#[test]
fn safe_api_is_pure() {
    let inputs = [goal("x"), goal("\0"), b"<summary/>".to_vec(), corpus::summary(2000)];
    for xml in &inputs {
        let first = validate(xml);
        for _ in 0..3 {
            assert_eq!(validate(xml), first);
        }
    }
}
