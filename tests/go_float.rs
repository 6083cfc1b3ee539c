//! R10.6 against Go itself: the float digits of the request fingerprint's canonical bytes must be
//! exactly what Go's `encoding/json` writes (`strconv.AppendFloat(b, f, 'f' or 'e', -1, 64)`), for
//! well over 10^6 doubles per run: random bit patterns, every k/2^19 in (0, 2] (which holds every
//! k/2^17 and k/2^18 tie candidate), subnormals, the 1e-6 and 1e21 notation edges and powers of ten
//! with their neighbours. The Go side is `tests/go_float/main.go`.
//!
//! A plain `main` (harness = false), so that its count, and a skip when Go is missing, are printed
//! on their own lines in the test output. Under `CI=true` a missing Go is a failure.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use loopcompact::fingerprint::FingerprintInput;

fn go_binary() -> Option<PathBuf> {
    if let Some(go) = std::env::var_os("LOOPCOMPACT_GO") {
        return Some(go.into());
    }
    let debian = Path::new("/usr/lib/go-1.23/bin/go");
    if debian.is_file() {
        return Some(debian.to_path_buf());
    }
    let on_path = Command::new("go").arg("version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    on_path.is_ok_and(|s| s.success()).then(|| PathBuf::from("go"))
}

/// splitmix64: a fixed, reproducible stream of bit patterns.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn doubles() -> Vec<f64> {
    let mut out = Vec::new();
    let mut rng = SplitMix(0x6c6f_6f70_636f_6d70);
    // Random bit patterns (both signs, every exponent), finite only.
    while out.len() < 400_000 {
        let x = f64::from_bits(rng.next());
        if x.is_finite() {
            out.push(x);
        }
    }
    // Every k/2^19 in (0, 2]: the k/2^17 and k/2^18 candidates are the even k among them.
    out.extend((1..=1u64 << 20).map(|k| k as f64 / (1u64 << 19) as f64));
    // The same short binary fractions scaled up, where ties land on longer integer parts.
    out.extend((0..50_000).map(|_| (rng.next() >> 11) as f64 + (rng.next() % 8) as f64 / 8.0));
    // Subnormals: the smallest ones, then random ones.
    out.extend((1..=2_000u64).map(f64::from_bits));
    out.extend((0..20_000).map(|_| f64::from_bits(rng.next() & ((1 << 52) - 1))));
    // The notation edges 1e-6 and 1e21, a thousand doubles on each side of each.
    for edge in [1e-6f64, 1e21] {
        let bits = edge.to_bits();
        out.extend((bits - 1000..=bits + 1000).map(f64::from_bits));
    }
    // Powers of ten across the whole range, with two neighbours on each side.
    for p in -323..=308 {
        let bits = format!("1e{p}").parse::<f64>().unwrap().to_bits();
        out.extend((bits - 2..=bits + 2).map(f64::from_bits));
    }
    // Some negatives of everything above.
    let negatives: Vec<f64> = out.iter().step_by(7).map(|x| -x).collect();
    out.extend(negatives);
    out
}

/// The number written after `key` in canonical bytes, up to the next comma.
fn field<'a>(canonical: &'a str, key: &str) -> &'a str {
    let start = canonical.find(key).unwrap() + key.len();
    let len = canonical[start..].find(',').unwrap();
    &canonical[start..start + len]
}

/// The digits of a shortest 'e' form (`-1.2345e-07` -> `12345`).
fn mantissa_digits(e_form: &str) -> String {
    let mantissa = e_form.split('e').next().unwrap();
    mantissa.chars().filter(char::is_ascii_digit).collect()
}

fn main() {
    let Some(go) = go_binary() else {
        if std::env::var_os("CI").is_some() {
            eprintln!("go_float: Go is required under CI (install golang-1.23-go) but was not found");
            std::process::exit(1);
        }
        println!("go_float: skipped: Go not found (set LOOPCOMPACT_GO or install golang-1.23-go)");
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let gocache = manifest.join("target").join("go").join("cache");
    let mut child = Command::new(&go)
        .args(["run", "."])
        .current_dir(manifest.join("tests").join("go_float"))
        .env("GOTOOLCHAIN", "local")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .env("GOCACHE", gocache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start go run");
    let xs = doubles();
    let mut stdin = child.stdin.take().unwrap();
    let input: Vec<u8> = xs.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect();
    let writer = std::thread::spawn(move || stdin.write_all(&input).expect("write to gofloat"));
    let go_lines: Vec<String> = BufReader::new(child.stdout.take().unwrap()).lines().map(Result::unwrap).collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success(), "gofloat failed");
    assert_eq!(go_lines.len(), xs.len(), "gofloat answered {} of {} doubles", go_lines.len(), xs.len());

    let doc = std::fs::read_to_string(manifest.join("tests/vectors/fingerprint.jsonl")).unwrap();
    let example: serde_json::Value = doc
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|row| row["expect"] == "ok")
        .unwrap();
    let mut input = FingerprintInput::from_json(example["input"].as_str().unwrap().as_bytes()).unwrap();

    let (mut mismatches, mut ties) = (0usize, 0usize);
    for (pair, lines) in xs.chunks(2).zip(go_lines.chunks(2)) {
        input.model.sampling.temperature = pair.first().copied();
        input.model.sampling.top_p = pair.get(1).copied();
        let canonical = String::from_utf8(input.canonical_bytes().unwrap()).unwrap();
        let ours = [field(&canonical, "\"Temperature\":"), field(&canonical, "\"TopP\":")];
        for ((x, line), ours) in pair.iter().zip(lines).zip(ours) {
            let (go_json, go_e) = line.split_once(' ').unwrap();
            if ours != go_json {
                mismatches += 1;
                if mismatches <= 10 {
                    eprintln!("go_float: {x:e} (bits {:#018x}): ours {ours}, Go {go_json}", x.to_bits());
                }
            }
            // A tie the digits of Rust's own shortest `{:e}` (the writer before R10.6's amendment)
            // resolve the other way.
            if mantissa_digits(&format!("{:e}", x.abs())) != mantissa_digits(go_e) {
                ties += 1;
            }
        }
    }
    println!(
        "go_float: {} doubles compared with Go's strconv ({go:?}): {mismatches} differ; {ties} are exact ties \
         where Rust's shortest {{:e}} digits (the old writer) differ from Go's",
        xs.len(),
        go = go.display().to_string()
    );
    if mismatches > 0 {
        std::process::exit(1);
    }
    println!("1 passed, 0 failed");
}
