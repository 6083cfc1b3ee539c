//! R10.5's layout, declared once: the keys of the canonical bytes in their order, each with the
//! kind of its value and the value's place in a [`FingerprintInput`](super::FingerprintInput). The
//! canonical writer (`encode`), the template reader (`canonical`) and the string fields
//! (`decode::StringField`) are expanded from it, so a key added, renamed or moved here changes all
//! three; the general decoder's layouts (`decode`, and the capability layouts of P8.7) are checked
//! against it by a test (`decode::tests`).
//!
//! `r10_5!(then!(args))` expands to `then! { (args) steps end [close] }`: the layout flattened into
//! steps `[bytes] kind (field) (place);`, each the literal bytes up to one value (keys, `{`, `}`
//! and `,` merged into one literal, so that the writer puts them with one copy and the reader
//! checks them with one compare) and that value, then the literal bytes that close the document.
//!
//! The kinds of value: `string(F)`, a string as E7.6 writes it, whose span the digest path records
//! under `StringField::F`; `bool`; `u8` and `u64`, unsigned integers; `f64_or_null` (R10.6);
//! `i64_or_null`; `stop`, the `Stop` array or `null`; `uuid`, `through_event_id` in lower case;
//! `identity`, a `SecurityIdentity` as 32 integers.

/// R10.5's layout (see the module's documentation).
macro_rules! r10_5 {
    ($then:ident ! ($($args:tt)*)) => {
        $crate::fingerprint::template::flatten! { [$then ($($args)*)] [""] ["{"] []
            "SystemRevision": string(SystemRevision) system_revision,
            "ToolPolicyRevision": string(ToolPolicyRevision) tool_policy_revision,
            "Model": {
                "Provider": string(Provider) model.provider,
                "APIFormat": string(ApiFormat) model.api_format,
                "BaseURL": string(BaseUrl) model.base_url,
                "Name": string(Name) model.name,
                "Origin": u8 model.origin,
                "Caps": {
                    "AcceptsImages": bool model.caps.accepts_images,
                    "Tools": bool model.caps.tools,
                    "Thinking": bool model.caps.thinking,
                    "StructuredOutput": bool model.caps.structured_output,
                    "StructuredOutputWithTools": bool model.caps.structured_output_with_tools,
                    "ThinkingDialect": string(ThinkingDialect) model.caps.thinking_dialect,
                    "PromptCaching": bool model.caps.prompt_caching,
                },
                "Limits": {
                    "WindowTokens": u64 model.limits.window_tokens,
                    "MaxInputTokens": u64 model.limits.max_input_tokens,
                    "MaxOutputTokens": u64 model.limits.max_output_tokens,
                },
                "Sampling": {
                    "Temperature": f64_or_null model.sampling.temperature,
                    "TopP": f64_or_null model.sampling.top_p,
                    "MaxTokens": i64_or_null model.sampling.max_tokens,
                    "Stop": stop model.sampling.stop,
                    "Effort": string(Effort) model.sampling.effort,
                },
            },
            "Basis": {
                "revision": u64 basis.revision,
                "through_event_id": uuid basis.through_event_id,
            },
            "RuntimeContextRevision": string(RuntimeContextRevision) runtime_context_revision,
            "CounterCapability": {
                "Provider": string(CounterProvider) counter.provider,
                "Transport": u8 counter.transport,
                "SecurityIdentity": identity counter.security_identity,
                "Retention": u8 counter.retention,
                "TokenizerRev": string(TokenizerRev) counter.tokenizer_rev,
                "Quality": u8 counter.quality,
            },
            "InferenceCapability": {
                "Provider": string(InferenceProvider) inference.provider,
                "Transport": u8 inference.transport,
                "SecurityIdentity": identity inference.security_identity,
                "Retention": u8 inference.retention,
            },
        }
    };
}

/// Flattens a layout for [`r10_5!`], one key at a time. The state: what to expand to at the end,
/// the separator before the next key (`""` first in an object, then `","`), the literal pieces not
/// yet put in a step, and the steps so far.
macro_rules! flatten {
    // The end of an object: its `}`; a key that follows takes a `,`.
    ([$($then:tt)*] [$sep:literal] [$($acc:literal)*] [$($steps:tt)*] @end, $($rest:tt)*) => {
        $crate::fingerprint::template::flatten! { [$($then)*] [","] [$($acc)* "}"] [$($steps)*] $($rest)* }
    };
    // An object: `"key":{`, its keys, then its end.
    ([$($then:tt)*] [$sep:literal] [$($acc:literal)*] [$($steps:tt)*] $key:literal: { $($inner:tt)* }, $($rest:tt)*) => {
        $crate::fingerprint::template::flatten! {
            [$($then)*] [""] [$($acc)* $sep "\"" $key "\":{"] [$($steps)*] $($inner)* @end, $($rest)*
        }
    };
    // A value: a step of the literal bytes up to it and the value.
    (
        [$($then:tt)*] [$sep:literal] [$($acc:literal)*] [$($steps:tt)*]
        $key:literal: $kind:ident $(($field:ident))? $($place:ident).+, $($rest:tt)*
    ) => {
        $crate::fingerprint::template::flatten! {
            [$($then)*] [","] []
            [$($steps)* [concat!($($acc,)* $sep, "\"", $key, "\":")] $kind ($($field)?) ($($place).+);]
            $($rest)*
        }
    };
    // The end of the document: its `}` closes the last literal.
    ([$then:ident ($($args:tt)*)] [$sep:literal] [$($acc:literal)*] [$($steps:tt)*]) => {
        $then! { ($($args)*) $($steps)* end [concat!($($acc,)* "}")] }
    };
}

pub(super) use {flatten, r10_5};
