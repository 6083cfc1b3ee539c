//! One benchmark per policy and limits entry point of the C ABI (SPEC §8, §9), on valid inputs that
//! run every check: the automatic compaction policy, the observation policy, a full context
//! configuration, and the four integer functions.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use loopcompact::ffi::{
    lc_compaction_policy_validate, lc_context_config_validate, lc_context_limits, lc_context_limits_resolve,
    lc_context_observation_validate, lc_occupancy_basis_points, lc_pressure_level, lc_replacement_check,
    lc_resolved_limits,
};

const POLICY: &str = r#"{"Automatic":true,"CounterPolicy":2,"CompactAt":8000,"RearmBelow":6000,"ReservedOutput":4096,"SafetyMargin":512,"MaxSummaryTokens":2048,"CountTimeout":2000000000,"Hustle":"context.compact"}"#;

const OBSERVATION: &str = r#"{"ReservedOutput":4096,"SafetyMargin":512,"CountTimeout":2000000000}"#;

/// A same-endpoint counter and TLS inference of one provider with the automatic policy above: every
/// step of P8.8 runs, P8.11 compares providers and identities.
fn context_config() -> String {
    let id = format!("[{}]", (1..=32).map(|b: u8| b.to_string()).collect::<Vec<_>>().join(","));
    format!(
        concat!(
            r#"{{"Compaction":{policy},"ContextObservation":null,"#,
            r#""CounterCapability":{{"Provider":"anthropic","Transport":2,"SecurityIdentity":{id},"Retention":2,"TokenizerRev":"claude-tok-2026-05","Quality":1}},"#,
            r#""InferenceCapability":{{"Provider":"anthropic","Transport":2,"SecurityIdentity":{id},"Retention":3}}}}"#
        ),
        policy = POLICY,
        id = id
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("policy");

    g.bench_function("lc_compaction_policy_validate", |b| {
        b.iter(|| unsafe { lc_compaction_policy_validate(black_box(POLICY.as_ptr()), black_box(POLICY.len()), 3) })
    });

    g.bench_function("lc_context_observation_validate", |b| {
        b.iter(|| unsafe {
            lc_context_observation_validate(black_box(OBSERVATION.as_ptr()), black_box(OBSERVATION.len()), 3)
        })
    });

    let config = context_config();
    assert_eq!(unsafe { lc_context_config_validate(config.as_ptr(), config.len()) }, 0, "the config must be valid");
    g.bench_function("lc_context_config_validate", |b| {
        b.iter(|| unsafe { lc_context_config_validate(black_box(config.as_ptr()), black_box(config.len())) })
    });

    let limits = lc_context_limits { window_tokens: 200_000, max_input_tokens: 180_000, max_output_tokens: 64_000 };
    g.bench_function("lc_context_limits_resolve", |b| {
        let mut out = lc_resolved_limits::default();
        b.iter(|| unsafe { lc_context_limits_resolve(black_box(limits), black_box(4096), black_box(512), &mut out) })
    });

    g.bench_function("lc_occupancy_basis_points", |b| {
        let mut out = 0u16;
        b.iter(|| unsafe { lc_occupancy_basis_points(black_box(u64::MAX - 1), black_box(u64::MAX), &mut out) })
    });

    g.bench_function("lc_pressure_level", |b| {
        b.iter(|| lc_pressure_level(black_box(2), black_box(7000), black_box(true), black_box(8000), black_box(6000)))
    });

    g.bench_function("lc_replacement_check", |b| {
        b.iter(|| lc_replacement_check(black_box(150_000), black_box(175_392)))
    });

    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
