//! What every module of the fingerprint tests shares: the C call, the R10.7 worked example as a
//! typed value and as a document, and builders of that document with one key replaced or removed.

pub use std::ptr;

pub use loopcompact::Status;
pub use loopcompact::ffi::{LC_FINGERPRINT_LEN, lc_request_fingerprint};
pub use loopcompact::fingerprint::{Basis, Caps, FingerprintInput, Limits, Model, RequestFingerprint, Sampling};
pub use loopcompact::policy::capability::{CounterCapability, InferenceCapability};
pub use serde_json::Value;
pub use testkit::spec::{FINGERPRINT_EXAMPLE as WORKED_EXAMPLE, FINGERPRINT_EXAMPLE_SHA256 as WORKED_EXAMPLE_SHA256};
pub use testkit::status;
pub use testkit::vectors;

/// `lc_request_fingerprint` on `json` (a pointer to its bytes, also when empty): status and digest.
pub fn call(json: &[u8]) -> (i32, [u8; 32]) {
    let mut out = [0xAAu8; LC_FINGERPRINT_LEN];
    let rc = unsafe { lc_request_fingerprint(json.as_ptr(), json.len(), out.as_mut_ptr()) };
    (rc, out)
}

pub fn status_of(json: &[u8]) -> Status {
    Status::from_code(call(json).0).unwrap()
}

/// The R10.7 worked example as a typed value, built from the spec's prose (not from the bytes).
pub fn worked_example() -> FingerprintInput {
    FingerprintInput {
        system_revision: "system-v1".into(),
        tool_policy_revision: "tools-v1".into(),
        runtime_context_revision: "runtime-v1".into(),
        model: Model {
            provider: "lmstudio".into(),
            api_format: "openai".into(),
            base_url: "http://localhost:1234".into(),
            name: "m".into(),
            origin: 0,
            caps: Caps::default(),
            limits: Limits::default(),
            sampling: Sampling { temperature: Some(0.5), ..Sampling::default() },
        },
        basis: Basis { revision: 1, through_event_id: "01000000-0000-0000-0000-000000000000".into() },
        counter: CounterCapability {
            provider: String::new(),
            transport: 1,
            security_identity: [0; 32],
            retention: 1,
            tokenizer_rev: "exact-v1".into(),
            quality: 2,
        },
        inference: InferenceCapability {
            provider: String::new(),
            transport: 1,
            security_identity: [0; 32],
            retention: 1,
        },
    }
}

/// The worked example's document as a JSON value, for editing.
pub fn example_value() -> Value {
    serde_json::from_str(WORKED_EXAMPLE).unwrap()
}

/// `value` with the field at `path` (keys separated by `.`) replaced by `new`.
pub fn with(path: &str, new: Value) -> String {
    let mut v = example_value();
    let mut at = &mut v;
    for key in path.split('.') {
        at = at.get_mut(key).unwrap_or_else(|| panic!("no {path}"));
    }
    *at = new;
    v.to_string()
}

/// `value` without the key at `path`.
pub fn without(path: &str) -> String {
    let mut v = example_value();
    let (parent, key) = path.rsplit_once('.').map_or(("", path), |(p, k)| (p, k));
    let mut at = &mut v;
    for k in parent.split('.').filter(|k| !k.is_empty()) {
        at = at.get_mut(k).unwrap();
    }
    assert!(at.as_object_mut().unwrap().remove(key).is_some(), "no {path}");
    v.to_string()
}

/// Every key path of a JSON value (objects only; arrays are leaves).
pub fn key_paths(v: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Value::Object(map) = v {
        for (k, child) in map {
            let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            out.push(path.clone());
            key_paths(child, &path, out);
        }
    }
}
