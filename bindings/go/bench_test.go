package loopcompact_test

// What validating a summary costs a Go program: the pure-Go oracle (encoding/xml) against the
// library through cgo, for a realistic 4 KB and 1 MB summary, plus the bare cost of one cgo call
// and the output path (JSON reply + XML). Run from bindings/go:
//
//	go test -run='^$' -bench=. -benchtime=2s
//
// (-cpu=1,2 also shows how the parallel variants scale.)
//
// The *Realistic* benchmarks run on the summary of benches/gen/make_summary.py (the repository's
// generator, with entity and character references on every line); where it (the module outside
// its repository) or python3 is missing they print one line saying so and are skipped. The fingerprint benchmarks run on the
// 943-byte worked example of SPEC R10.7, read from docs/SPEC.md.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
	"github.com/loopcompact/loopcompact/bindings/go/internal/oracle"
)

// realisticSummary builds a valid summary of about size bytes that looks like a summariser's
// work: prose, list-like lines, paths, code fragments escaped with entities, some non-ASCII.
func realisticSummary(size int) []byte {
	lines := [][]string{
		{ // goal
			"Migrate the billing service from the legacy ORM to sqlx without changing the public API.",
			"Keep the nightly export job (cron 02:00 UTC) working during the migration.",
		},
		{ // constraints
			"- No schema changes before the 3.2 release; the DBA team reviews every migration.",
			"- Tests must pass with `cargo test --workspace` &amp;&amp; `make e2e`.",
			"- Do not touch src/legacy/*.rs except for the adapter in src/legacy/bridge.rs.",
			"- Latency budget: p99 &lt; 40 ms for GET /invoices/{id}; the SLO dashboard is authoritative.",
		},
		{ // decisions
			"- Use a repository trait per aggregate (InvoiceRepo, CustomerRepo) &#8212; agreed with Léa on day 2.",
			"- Queries live in queries/*.sql and are checked at build time; no string-built SQL.",
			"- Money is i64 minor units everywhere; the f64 path in export.rs was a bug (#4812).",
			"- Error mapping: sqlx::Error::RowNotFound → ApiError::NotFound; others → Internal with a trace id.",
		},
		{ // state
			"InvoiceRepo is done and covered (212 tests green); CustomerRepo compiles, 3 tests fail in",
			"customer_merge_test.rs because the fixture uses the old timestamp format &quot;YYYY/MM/DD&quot;.",
			"The export job runs against the new repo behind the flag BILLING_SQLX=1 in staging.",
		},
		{ // open_items
			"- Fix the three customer_merge tests (fixture dates) and re-run the e2e suite.",
			"- Ask the DBA team whether the index on invoices(customer_id, issued_at) can land before 3.2.",
			"- Remove the f64 conversion helpers once export.rs is migrated; grep for `as f64` in src/billing/.",
		},
	}
	var sections [5]bytes.Buffer
	for k := range sections {
		for _, l := range lines[k] {
			sections[k].WriteString("\n    " + l)
		}
	}
	total := func() int {
		n := len("<conversation_summary>\n</conversation_summary>\n")
		for k := range sections {
			n += sections[k].Len() + 2*len(benchSections[k]) + 12
		}
		return n
	}
	// Grow decisions, state and open items in turn until the size is reached.
	for i := 0; total() < size; i++ {
		k := []int{2, 3, 4}[i%3]
		l := lines[k][i%len(lines[k])]
		sections[k].WriteString(fmt.Sprintf("\n    (%d) %s", i, l))
	}
	var out bytes.Buffer
	out.WriteString("<conversation_summary>\n")
	for k, name := range benchSections {
		fmt.Fprintf(&out, "  <%s>%s\n  </%s>\n", name, sections[k].Bytes(), name)
	}
	out.WriteString("</conversation_summary>\n")
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

var benchSections = []string{"goal", "constraints", "decisions", "state", "open_items"}

var (
	summary4KB = realisticSummary(4 << 10)
	summary1MB = realisticSummary(1 << 20)
)

// benchInputs holds the generators of realistic benchmark inputs (benches/gen of the repository).
const benchInputs = "../../benches/gen"

var realistic struct {
	once       sync.Once
	summary4KB []byte
	omitted    string // why the realistic benchmarks are omitted, "" when they run
}

// realisticSummary4KB is `make_summary.py 4096`'s output, or nil and the reason it is missing.
func realisticSummary4KB() ([]byte, string) {
	realistic.once.Do(func() {
		script := filepath.Join(benchInputs, "make_summary.py")
		if _, err := os.Stat(script); err != nil {
			realistic.omitted = "benches/gen absent (the module outside its repository)"
			return
		}
		out, err := exec.Command("python3", script, "4096").Output()
		if err != nil {
			realistic.omitted = fmt.Sprintf("python3 %s 4096: %v", script, err)
			return
		}
		realistic.summary4KB = out
	})
	return realistic.summary4KB, realistic.omitted
}

var omittedOnce sync.Once

// needRealistic returns the realistic 4 KB summary, or prints once why it is missing and skips.
func needRealistic(b *testing.B) []byte {
	doc, why := realisticSummary4KB()
	if doc == nil {
		omittedOnce.Do(func() { fmt.Printf("realistic benchmarks omitted: %s\n", why) })
		b.Skip("omitted: " + why)
	}
	return doc
}

// fingerprintExample is the 943-byte document of SPEC R10.7 (its canonical bytes), from docs/SPEC.md.
func fingerprintExample(tb testing.TB) []byte {
	tb.Helper()
	spec, err := os.ReadFile("../../docs/SPEC.md")
	if err != nil {
		tb.Fatal(err)
	}
	_, after, _ := bytes.Cut(spec, []byte("The canonical bytes are these 943 bytes:\n```\n"))
	doc, _, ok := bytes.Cut(after, []byte("\n```\n"))
	if !ok || len(doc) != 943 {
		tb.Fatalf("R10.7 example not found in docs/SPEC.md (%d bytes)", len(doc))
	}
	return doc
}

// The benchmark document is the SPEC's example and the first fingerprint vector, and both paths
// give its digest.
func TestBenchmarkFingerprintInput(t *testing.T) {
	doc := fingerprintExample(t)
	first := loadRows(t, filepath.Join(vectorDir, "fingerprint.jsonl"))[0]
	if !bytes.Equal(first.bytes(t, "input"), doc) {
		t.Errorf("the first fingerprint vector is not the R10.7 example")
	}
	want := first.str("sha256")
	if got, reason := oracle.RequestFingerprint(doc); reason != "ok" || fmt.Sprintf("%x", got) != want {
		t.Errorf("Go path: %s %x, want %s", reason, got, want)
	}
	if got, err := lc.RequestFingerprint(doc); err != nil || got.String() != want {
		t.Errorf("library: %v %s, want %s", err, got, want)
	}
}

func TestBenchmarkSummariesAreValid(t *testing.T) {
	docs := [][]byte{summary4KB, summary1MB}
	if doc, why := realisticSummary4KB(); doc != nil {
		docs = append(docs, doc)
	} else {
		t.Logf("realistic summary omitted: %s", why)
	}
	for _, doc := range docs {
		if r := oracle.Validate(doc); r != oracle.OK {
			t.Errorf("oracle: %s for the %d-byte summary", r, len(doc))
		}
		if err := lc.ValidateSummaryXML(doc); err != nil {
			t.Errorf("library: %v for the %d-byte summary", err, len(doc))
		}
	}
}

func benchOracle(b *testing.B, doc []byte) {
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if oracle.Validate(doc) != oracle.OK {
			b.Fatal("invalid")
		}
	}
}

func benchLibrary(b *testing.B, doc []byte) {
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if lc.ValidateSummaryXML(doc) != nil {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkSummaryOracle4KB(b *testing.B)  { benchOracle(b, summary4KB) }
func BenchmarkSummaryLibrary4KB(b *testing.B) { benchLibrary(b, summary4KB) }
func BenchmarkSummaryOracle1MB(b *testing.B)  { benchOracle(b, summary1MB) }
func BenchmarkSummaryLibrary1MB(b *testing.B) { benchLibrary(b, summary1MB) }

// The summary of make_summary.py 4096 (about 4 KB, references on every line).
func BenchmarkSummaryOracleRealistic4KB(b *testing.B)  { benchOracle(b, needRealistic(b)) }
func BenchmarkSummaryLibraryRealistic4KB(b *testing.B) { benchLibrary(b, needRealistic(b)) }

// The same validations from all GOMAXPROCS goroutines at once (compare -cpu=1 with -cpu=2).
func BenchmarkSummaryOracle4KBParallel(b *testing.B) {
	b.SetBytes(int64(len(summary4KB)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			oracle.Validate(summary4KB)
		}
	})
}

func BenchmarkSummaryLibrary4KBParallel(b *testing.B) {
	b.SetBytes(int64(len(summary4KB)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			lc.ValidateSummaryXML(summary4KB)
		}
	})
}

// One cgo call that does almost nothing: the fixed cost every call through the binding pays.
func BenchmarkCgoCallOccupancy(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := lc.OccupancyBasisPoints(uint64(i), 1<<40); err != nil {
			b.Fatal(err)
		}
	}
}

// The whole output check of a reply carrying the 4 KB summary: the library (O6.2) against a Go
// path doing what a Go host would (encoding/json into a struct, version and identity checks, then
// the oracle). The Go path skips the SPEC's stricter JSON rules (duplicate keys, case folding,
// invalid UTF-8), so it is a lower bound of what a faithful Go implementation costs.
func BenchmarkOutputLibrary4KB(b *testing.B) {
	in, err := lc.ParseInput([]byte(outputWire))
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	reply := wrapOutput(summary4KB)
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := in.ValidateOutput(reply, 1, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}

type goReply struct {
	Version *int `json:"version"`
	Basis   *struct {
		Revision       *uint64 `json:"revision"`
		ThroughEventID *string `json:"through_event_id"`
	} `json:"basis"`
	Model *struct {
		Provider *string `json:"provider"`
		Model    *string `json:"model"`
	} `json:"model"`
	RequestFingerprint *string `json:"request_fingerprint"`
	Summary            *string `json:"summary"`
}

func goValidateOutput(reply []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(reply))
	dec.DisallowUnknownFields()
	var r goReply
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if r.Version == nil || *r.Version != 1 || r.Basis == nil || r.Model == nil || r.Summary == nil ||
		r.RequestFingerprint == nil || r.Basis.Revision == nil || r.Basis.ThroughEventID == nil ||
		r.Model.Provider == nil || r.Model.Model == nil {
		return nil, errors.New("wire")
	}
	if *r.Basis.Revision != 3 || *r.Basis.ThroughEventID != "7c9e6679-7425-40de-944b-e07fc1f90ae7" ||
		*r.Model.Provider != "provider" || *r.Model.Model != "model" ||
		*r.RequestFingerprint != "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20" {
		return nil, errors.New("identity")
	}
	s := []byte(*r.Summary)
	if res := oracle.Validate(s); res != oracle.OK {
		return nil, errors.New(res.Reason())
	}
	return s, nil
}

func BenchmarkOutputGo4KB(b *testing.B) {
	reply := wrapOutput(summary4KB)
	if s, err := goValidateOutput(reply); err != nil || !bytes.Equal(s, summary4KB) {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := goValidateOutput(reply); err != nil {
			b.Fatal(err)
		}
	}
}

// The request fingerprint of the R10.7 example: the Go path (internal/oracle: encoding/json into
// structs, the R10.2 checks, json.Marshal, sha256.Sum256) against the library through cgo.
func BenchmarkFingerprintGo(b *testing.B) {
	doc := fingerprintExample(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, reason := oracle.RequestFingerprint(doc); reason != "ok" {
			b.Fatal(reason)
		}
	}
}

func BenchmarkFingerprintLibrary(b *testing.B) {
	doc := fingerprintExample(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := lc.RequestFingerprint(doc); err != nil {
			b.Fatal(err)
		}
	}
}
