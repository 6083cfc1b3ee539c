# The pinned toolchains and tools, in one place: sourced by .ci/run, scripts/fuzz, scripts/tsan and
# scripts/test-cinstall (not executable on its own). Each can be overridden from the environment.
#
# The nightly toolchain of fuzzing, Miri and ThreadSanitizer: a dated nightly, so that a new nightly
# cannot break CI overnight. nightly-2026-05-20 (rustc 1.97.0-nightly e50aa6fba) is the nightly of
# the machine image; rustup can install it (and dates up to 2026-08-01) from the distribution
# server this workplace reaches, but no nightly after that (rustup: "no release found").
LOOPCOMPACT_NIGHTLY=${LOOPCOMPACT_NIGHTLY:-nightly-2026-05-20}
# The stable toolchain of the build and tests (README.md: "Rust 1.95").
LOOPCOMPACT_STABLE=${LOOPCOMPACT_STABLE:-1.95.0}
# cargo-c: the release built on this stable's cargo (0.98); cargo-fuzz; pytest.
CARGO_C_VERSION=${CARGO_C_VERSION:-0.10.24+cargo-0.98.0}
CARGO_FUZZ_VERSION=${CARGO_FUZZ_VERSION:-0.13.2}
PYTEST_VERSION=${PYTEST_VERSION:-9.2.0}
# The release (scripts/release): the SBOM tool; the supply-chain checks of .ci/run (deny.toml).
CARGO_CYCLONEDX_VERSION=${CARGO_CYCLONEDX_VERSION:-0.5.9}
CARGO_DENY_VERSION=${CARGO_DENY_VERSION:-0.20.2}
