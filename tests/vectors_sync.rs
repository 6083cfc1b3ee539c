//! The bundled contract vectors (`tests/vectors/`) must equal `../shared/vectors` wherever that exists,
//! so that a clone without `../shared` still tests against the current contract.

mod common;

#[test]
fn bundled_vectors_equal_shared() {
    let Some(shared) = common::shared_vectors_dir() else {
        eprintln!("../shared/vectors not present: nothing to compare");
        return;
    };
    for file in ["summary_xml.jsonl", "input.jsonl", "output.jsonl", "policy.jsonl", "fingerprint.jsonl"] {
        let ours = std::fs::read(common::vectors_dir().join(file)).unwrap();
        let theirs = std::fs::read(shared.join(file)).unwrap();
        assert!(ours == theirs, "tests/vectors/{file} differs from ../shared/vectors/{file}: copy it again");
    }
}

#[test]
fn bundled_vectors_are_well_formed() {
    for file in ["summary_xml.jsonl", "input.jsonl", "output.jsonl", "policy.jsonl", "fingerprint.jsonl"] {
        let rows = common::rows(file);
        assert!(!rows.is_empty(), "{file} has no rows");
        let mut names = std::collections::HashSet::new();
        for row in &rows {
            assert!(names.insert(common::name(row).to_owned()), "{file}: duplicate row name {}", common::name(row));
            assert!(row.get("expect").is_some(), "{file}: row {} lacks expect", common::name(row));
        }
    }
}
