//! Sample documents of the spec that several tests share, each valid and in the spec's own
//! encoding. A test that needs a variant builds it from these (by replacing a field), so that it
//! differs from a valid document only where it says.

/// A request fingerprint (64 lower-case hex digits, W5.1) used by the sample wires.
pub const REQUEST_FINGERPRINT: &str = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";

/// A `through_event_id` (a UUID, W5.1) used by the sample wires.
pub const EVENT_ID: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

/// F7.3: the text that replaces an old tool result when fitting.
pub const STUB: &str = "[old tool result omitted for compaction]";

/// A valid automatic compaction policy (P8.2) for the counter quality 2.
pub const POLICY: &str = r#"{"Automatic":true,"CounterPolicy":2,"CompactAt":8000,"RearmBelow":6000,"ReservedOutput":4096,"SafetyMargin":512,"MaxSummaryTokens":2048,"CountTimeout":2000000000,"Hustle":"context.compact"}"#;

/// A valid observation policy (P8.6).
pub const OBSERVATION: &str = r#"{"ReservedOutput":4096,"SafetyMargin":512,"CountTimeout":2000000000}"#;

/// The 943 canonical bytes of the R10.7 worked example, copied from the spec text.
pub const FINGERPRINT_EXAMPLE: &str = r#"{"SystemRevision":"system-v1","ToolPolicyRevision":"tools-v1","Model":{"Provider":"lmstudio","APIFormat":"openai","BaseURL":"http://localhost:1234","Name":"m","Origin":0,"Caps":{"AcceptsImages":false,"Tools":false,"Thinking":false,"StructuredOutput":false,"StructuredOutputWithTools":false,"ThinkingDialect":"","PromptCaching":false},"Limits":{"WindowTokens":0,"MaxInputTokens":0,"MaxOutputTokens":0},"Sampling":{"Temperature":0.5,"TopP":null,"MaxTokens":null,"Stop":null,"Effort":""}},"Basis":{"revision":1,"through_event_id":"01000000-0000-0000-0000-000000000000"},"RuntimeContextRevision":"runtime-v1","CounterCapability":{"Provider":"","Transport":1,"SecurityIdentity":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"Retention":1,"TokenizerRev":"exact-v1","Quality":2},"InferenceCapability":{"Provider":"","Transport":1,"SecurityIdentity":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"Retention":1}}"#;

/// The SHA-256 of [`FINGERPRINT_EXAMPLE`], from the spec text.
pub const FINGERPRINT_EXAMPLE_SHA256: &str = "f0c4cabef8241dc5e6550b771cc4bed570508cfbc820a697efc8439438bde5e0";

/// A valid summary (SPEC §4) with every kind of text a summariser writes: escapes, a character
/// reference, a self-closed and an empty section, non-ASCII text and a line break.
pub const SUMMARY: &str = "<conversation_summary><goal>Ship the parser &amp; its tests.</goal><constraints/>\
<decisions>Kept the API; &lt;T&gt; bounds stay.</decisions><state>Tests pass (12 of 12) &#233; café.\n\
The release is tagged.</state><open_items></open_items></conversation_summary>";

/// A compaction input wire (W5.1) around `messages` (JSON message objects, joined as they are),
/// with the identity of [`envelope`]: revision 1, [`EVENT_ID`], provider `p`, model `m`,
/// [`REQUEST_FINGERPRINT`].
#[must_use]
pub fn wire_of(messages: &[String], max_summary_tokens: u64) -> Vec<u8> {
    format!(
        r#"{{"version":1,"basis":{{"revision":1,"through_event_id":"{EVENT_ID}"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"{REQUEST_FINGERPRINT}","transcript":[{}],"max_summary_tokens":{max_summary_tokens}}}"#,
        messages.join(",")
    )
    .into_bytes()
}

/// The output wire (O6.1) of [`wire_of`]'s identity around `text`, any bytes: `"`, `\` and control
/// bytes escaped as JSON requires (`\u00XX`, so that no escape is shorter than another), every other
/// byte as it is (so bytes that are not UTF-8 stay in the document). Returns the document and the
/// offset of the string's first byte.
#[must_use]
pub fn envelope(text: &[u8]) -> (Vec<u8>, usize) {
    let mut out = format!(
        r#"{{"version":1,"basis":{{"revision":1,"through_event_id":"{EVENT_ID}"}},"model":{{"provider":"p","model":"m"}},"request_fingerprint":"{REQUEST_FINGERPRINT}","summary":""#
    )
    .into_bytes();
    let start = out.len();
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..=0x1F => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"\"}");
    (out, start)
}

/// Where byte `k` of a text lands inside [`envelope`]'s string.
#[must_use]
pub fn envelope_offset(text: &[u8], k: usize) -> usize {
    text[..k.min(text.len())]
        .iter()
        .map(|&b| match b {
            b'"' | b'\\' => 2,
            0..=0x1F => 6,
            _ => 1,
        })
        .sum()
}

/// R15.2: the length of the shortest reply document (O6.1) that can pass for the input `wire`: its
/// identity in the shortest JSON spelling (serde's: short escapes where JSON has them, `\u00XX`
/// for other control characters, everything else raw) around the smallest summary (114 bytes).
/// `None` when `wire` has no such identity.
#[must_use]
pub fn shortest_reply_len(wire: &[u8]) -> Option<u64> {
    let doc: serde_json::Value = serde_json::from_slice(wire).ok()?;
    let smallest = "<conversation_summary><goal>.</goal><constraints/><decisions/><state>.</state><open_items/></conversation_summary>";
    let text = format!(
        r#"{{"version":1,"basis":{{"revision":{},"through_event_id":"{}"}},"model":{{"provider":{},"model":{}}},"request_fingerprint":"{}","summary":"{smallest}"}}"#,
        doc["basis"]["revision"].as_u64()?,
        doc["basis"]["through_event_id"].as_str()?,
        serde_json::to_string(doc["model"]["provider"].as_str()?).ok()?,
        serde_json::to_string(doc["model"]["model"].as_str()?).ok()?,
        doc["request_fingerprint"].as_str()?,
    );
    Some(text.len() as u64)
}
