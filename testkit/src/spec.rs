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
