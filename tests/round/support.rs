//! Transcripts, inputs and summaries the round's tests share.

use testkit::abi::Input;
use testkit::spec::wire_of;

pub fn input(messages: &[String]) -> Input {
    Input::parse(&wire_of(messages, 1000)).unwrap_or_else(|rc| panic!("the test transcript does not parse: {rc}"))
}

pub fn system(text: &str) -> String {
    format!(r#"{{"role":"system","blocks":[{{"type":"text","text":"{text}"}}]}}"#)
}

pub fn user(text: &str) -> String {
    format!(r#"{{"role":"user","blocks":[{{"type":"text","text":"{text}"}}]}}"#)
}

pub fn assistant(text: &str) -> String {
    format!(r#"{{"role":"assistant","blocks":[{{"type":"text","text":"{text}"}}],"usage":null}}"#)
}

/// An assistant message that thinks (signed), then calls a tool with id `id`.
pub fn calls(id: &str, signature: &str) -> String {
    format!(
        r#"{{"role":"assistant","blocks":[{{"type":"thinking","thinking":"plan","signature":"{signature}"}},{{"type":"tool_use","id":"{id}","name":"grep","input":{{"q":"x"}}}}],"usage":{{"input_tokens":5,"output_tokens":7}}}}"#
    )
}

pub fn tool(id: &str) -> String {
    format!(r#"{{"role":"tool","blocks":[{{"type":"text","text":"found"}}],"tool_use_id":"{id}","is_error":false}}"#)
}
