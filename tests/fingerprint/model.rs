//! R10.3: every condition on the model.

use super::support::*;

fn model_status(edit: impl FnOnce(&mut Model)) -> Result<(), Status> {
    let mut input = worked_example();
    edit(&mut input.model);
    let rust = input.validate().map_err(|e| e.status());
    let c = Status::from_code(call(&input.canonical_bytes().unwrap()).0).unwrap();
    assert_eq!(rust, if c == Status::Ok { Ok(()) } else { Err(c) }, "Rust API and C ABI agree");
    rust
}

#[test]
fn model_conditions() {
    let invalid = Err(Status::FingerprintModel);
    assert_eq!(model_status(|m| m.name.clear()), invalid);
    assert_eq!(model_status(|m| m.provider.clear()), invalid);
    // StructuredOutputWithTools needs both Tools and StructuredOutput.
    assert_eq!(model_status(|m| m.caps.structured_output_with_tools = true), invalid);
    assert_eq!(
        model_status(|m| {
            m.caps.structured_output_with_tools = true;
            m.caps.tools = true;
        }),
        invalid
    );
    assert_eq!(
        model_status(|m| {
            m.caps.structured_output_with_tools = true;
            m.caps.structured_output = true;
        }),
        invalid
    );
    assert_eq!(
        model_status(|m| {
            m.caps.structured_output_with_tools = true;
            m.caps.structured_output = true;
            m.caps.tools = true;
        }),
        Ok(())
    );
    // ThinkingDialect: "", adaptive, budget; non-empty needs Thinking.
    for dialect in ["adaptive", "budget"] {
        assert_eq!(model_status(|m| m.caps.thinking_dialect = dialect.into()), invalid);
        assert_eq!(
            model_status(|m| {
                m.caps.thinking_dialect = dialect.into();
                m.caps.thinking = true;
            }),
            Ok(())
        );
    }
    for dialect in ["Adaptive", "BUDGET", " budget", "none", "x"] {
        assert_eq!(
            model_status(|m| {
                m.caps.thinking_dialect = dialect.into();
                m.caps.thinking = true;
            }),
            invalid,
            "{dialect}"
        );
    }
    assert_eq!(model_status(|m| m.caps.thinking = true), Ok(()));
    // Limits: checked only with a window; equal is fine.
    let limits = |w, i, o| {
        move |m: &mut Model| m.limits = Limits { window_tokens: w, max_input_tokens: i, max_output_tokens: o }
    };
    assert_eq!(model_status(limits(100, 101, 0)), invalid);
    assert_eq!(model_status(limits(100, 0, 101)), invalid);
    assert_eq!(model_status(limits(100, 100, 100)), Ok(()));
    assert_eq!(model_status(limits(0, u64::MAX, u64::MAX)), Ok(()));
    assert_eq!(model_status(limits(u64::MAX, u64::MAX, u64::MAX)), Ok(()));
    assert_eq!(model_status(limits(1, 2, 2)), invalid);
    // BaseURL: empty is valid; otherwise R10.4.
    assert_eq!(model_status(|m| m.base_url.clear()), Ok(()));
    assert_eq!(model_status(|m| m.base_url = "ftp://localhost".into()), invalid);
    // Not checked: APIFormat, Origin, Effort, sampling values.
    assert_eq!(model_status(|m| m.api_format.clear()), Ok(()));
    assert_eq!(model_status(|m| m.api_format = "\u{0}?".into()), Ok(()));
    assert_eq!(model_status(|m| m.origin = 255), Ok(()));
    assert_eq!(model_status(|m| m.sampling.effort = "maximal".into()), Ok(()));
    assert_eq!(
        model_status(|m| {
            m.sampling.temperature = Some(-1e300);
            m.sampling.top_p = Some(7.0);
            m.sampling.max_tokens = Some(i64::MIN);
            m.sampling.stop = Some(vec![String::new()]);
        }),
        Ok(())
    );
}
