//! Diagnostics and recovery (docs/SPEC.md §13, issue 15), through the C ABI: the `_diagnose`
//! siblings field by field for every summary rule and for the typical failures of the JSON
//! documents, the same status as the plain functions on every conformance vector, no echo of
//! input bytes, the instructions' example, `struct_size`, the retry message, and the sections.
//!
//! Every expected value in the tables was derived by hand from docs/SPEC.md §4–§13 and the input
//! the row wrote (offsets with `find` of a marker in that input), never copied from a run.

mod support;

// C13.4: the summary grammar's rules, one row each.
mod summary;
// C13.4: the input wire, the reply and the summary inside it.
mod wire;
// C13.4: policies, context configuration, request fingerprint.
mod documents;
// C13.4: every conformance vector gives the plain function's status.
mod vectors;
// C13.1: no input bytes in any diagnostic or retry message.
mod no_echo;
// C13.6: the instructions and their example.
mod instructions;
// C13.2: struct_size.
mod struct_size;
// C13.3, C13.5: status classes and the retry message.
mod retry;
// C13.7, C13.8: sections and their text.
mod sections;
