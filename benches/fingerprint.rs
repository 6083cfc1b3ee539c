//! The request fingerprint (SPEC §10): one `lc_request_fingerprint` call on a typical document
//! (< 1 KB) and on the 943-byte worked example of R10.7 (`fingerprint/R10.7/`, the document of the
//! Go benchmarks BenchmarkFingerprintGo and BenchmarkFingerprintLibrary), and the raw SHA-256 throughput of its hashing path (the `sha2` crate) over 16 B, 1 KB,
//! 8 KB and 1 MB buffers, to compare with `openssl speed -evp sha256` on the same machine: the
//! `sha256` group in wall-clock time (compare with `openssl speed -elapsed`), the `sha256_cpu_time`
//! group in thread CPU time (compare with plain `openssl speed`, which divides by user CPU time).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use loopcompact::ffi::{LC_FINGERPRINT_LEN, lc_request_fingerprint};
use loopcompact::fingerprint::{FingerprintInput, RequestFingerprint};
use sha2::{Digest, Sha256};

/// A typical request as a Go host sends it (`json.Marshal`, no whitespace, so R10.5's canonical
/// bytes): a TLS inference endpoint with an identity, a same-endpoint counter, stop sequences and
/// sampling values.
const DOCUMENT: &str = r#"{"SystemRevision":"sys-v3","ToolPolicyRevision":"tools-v12","Model":{"Provider":"anthropic","APIFormat":"messages","BaseURL":"https://api.example.com/v1","Name":"claude-sonnet","Origin":1,"Caps":{"AcceptsImages":true,"Tools":true,"Thinking":true,"StructuredOutput":true,"StructuredOutputWithTools":true,"ThinkingDialect":"budget","PromptCaching":true},"Limits":{"WindowTokens":200000,"MaxInputTokens":180000,"MaxOutputTokens":64000},"Sampling":{"Temperature":0.7,"TopP":0.95,"MaxTokens":8192,"Stop":["\u003c/answer\u003e"],"Effort":"high"}},"Basis":{"revision":4711,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},"RuntimeContextRevision":"runtime-7","CounterCapability":{"Provider":"anthropic","Transport":2,"SecurityIdentity":[7,1,9,2,8,3,6,4,5,0,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4],"Retention":1,"TokenizerRev":"tok-2026","Quality":1},"InferenceCapability":{"Provider":"anthropic","Transport":2,"SecurityIdentity":[7,1,9,2,8,3,6,4,5,0,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4],"Retention":2}}"#;

/// The same request as another writer may send it: an upper-case UUID and a raw `<` in `Stop` (both
/// valid, neither canonical), so it is decoded and its canonical bytes written as it is hashed.
const NOT_CANONICAL: &str = r#"{"SystemRevision":"sys-v3","ToolPolicyRevision":"tools-v12","Model":{"Provider":"anthropic","APIFormat":"messages","BaseURL":"https://api.example.com/v1","Name":"claude-sonnet","Origin":1,"Caps":{"AcceptsImages":true,"Tools":true,"Thinking":true,"StructuredOutput":true,"StructuredOutputWithTools":true,"ThinkingDialect":"budget","PromptCaching":true},"Limits":{"WindowTokens":200000,"MaxInputTokens":180000,"MaxOutputTokens":64000},"Sampling":{"Temperature":0.7,"TopP":0.95,"MaxTokens":8192,"Stop":["</answer>"],"Effort":"high"}},"Basis":{"revision":4711,"through_event_id":"7C9E6679-7425-40DE-944B-E07FC1F90AE7"},"RuntimeContextRevision":"runtime-7","CounterCapability":{"Provider":"anthropic","Transport":2,"SecurityIdentity":[7,1,9,2,8,3,6,4,5,0,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4],"Retention":1,"TokenizerRev":"tok-2026","Quality":1},"InferenceCapability":{"Provider":"anthropic","Transport":2,"SecurityIdentity":[7,1,9,2,8,3,6,4,5,0,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4],"Retention":2}}"#;

fn fingerprint_call(c: &mut Criterion) {
    let doc = DOCUMENT.as_bytes();
    let canonical = RequestFingerprint::compute(doc).map(|f| f.canonical_bytes().to_vec());
    assert!(doc.len() < 1024 && canonical.as_deref() == Ok(doc), "the document is its canonical bytes");
    let other = NOT_CANONICAL.as_bytes();
    let digest = |d: &[u8]| RequestFingerprint::compute(d).map(|f| *f.as_bytes());
    assert!(digest(other).is_ok() && digest(other) == digest(doc), "the same request");
    let mut group = c.benchmark_group("fingerprint");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("lc_request_fingerprint", |b| {
        let mut out = [0u8; LC_FINGERPRINT_LEN];
        b.iter(|| {
            let rc = unsafe { lc_request_fingerprint(black_box(doc.as_ptr()), doc.len(), out.as_mut_ptr()) };
            assert_eq!(rc, 0);
            black_box(out)
        });
    });
    group.bench_function("lc_request_fingerprint/not_canonical", |b| {
        let mut out = [0u8; LC_FINGERPRINT_LEN];
        b.iter(|| {
            let rc = unsafe { lc_request_fingerprint(black_box(other.as_ptr()), other.len(), out.as_mut_ptr()) };
            assert_eq!(rc, 0);
            black_box(out)
        });
    });
    // The same call in thread CPU time (stable on a shared machine, see `thread_cpu_time`).
    group.bench_function("lc_request_fingerprint_cpu_time", |b| {
        let mut out = [0u8; LC_FINGERPRINT_LEN];
        b.iter_custom(|iters| {
            let start = thread_cpu_time();
            for _ in 0..iters {
                let rc = unsafe { lc_request_fingerprint(black_box(doc.as_ptr()), doc.len(), out.as_mut_ptr()) };
                assert_eq!(rc, 0);
                black_box(&out);
            }
            thread_cpu_time() - start
        });
    });
    // The R10.7 worked example: its canonical bytes are the document itself.
    let example = testkit::spec::FINGERPRINT_EXAMPLE.as_bytes();
    assert_eq!(example.len(), 943);
    let digest = RequestFingerprint::compute(example).map(|f| f.to_hex());
    assert_eq!(digest.as_deref(), Ok(testkit::spec::FINGERPRINT_EXAMPLE_SHA256), "R10.7");
    group.throughput(Throughput::Bytes(example.len() as u64));
    group.bench_function("R10.7/lc_request_fingerprint", |b| {
        let mut out = [0u8; LC_FINGERPRINT_LEN];
        b.iter(|| {
            let rc = unsafe { lc_request_fingerprint(black_box(example.as_ptr()), example.len(), out.as_mut_ptr()) };
            assert_eq!(rc, 0);
            black_box(out)
        });
    });
    group.throughput(Throughput::Bytes(doc.len() as u64));
    // Where the time goes: decoding, validation, canonical encoding, hashing.
    let input = FingerprintInput::from_json(doc).unwrap();
    group.bench_function("decode", |b| b.iter(|| FingerprintInput::from_json(black_box(doc))));
    group.bench_function("validate", |b| b.iter(|| black_box(&input).validate()));
    group.bench_function("canonical_bytes", |b| b.iter(|| black_box(&input).canonical_bytes()));
    let canonical = input.canonical_bytes().unwrap();
    group.bench_function("sha256_of_canonical", |b| b.iter(|| Sha256::digest(black_box(canonical.as_slice()))));
    group.finish();
}

fn sha256_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("sha256");
    for size in [16usize, 1024, 8 * 1024, 1024 * 1024] {
        let data: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &data, |b, data| {
            b.iter(|| black_box(Sha256::digest(black_box(data.as_slice()))));
        });
    }
    group.finish();
}

/// CPU time of the calling thread: `openssl speed` divides by user CPU time unless given
/// `-elapsed`, so on a shared machine the CPU-time figures are the ones to compare with it.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The same hashing as `sha256`, timed in thread CPU time instead of wall-clock time.
fn sha256_cpu_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("sha256_cpu_time");
    for size in [16usize, 1024, 8 * 1024, 1024 * 1024] {
        let data: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &data, |b, data| {
            b.iter_custom(|iters| {
                let start = thread_cpu_time();
                for _ in 0..iters {
                    black_box(Sha256::digest(black_box(data.as_slice())));
                }
                thread_cpu_time() - start
            });
        });
    }
    group.finish();
}

criterion_group!(benches, fingerprint_call, sha256_throughput, sha256_cpu_time);
criterion_main!(benches);
