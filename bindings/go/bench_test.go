package loopcompact_test

// What validating a summary costs a Go program: the pure-Go oracle (encoding/xml) against the
// library through cgo, for a realistic 4 KB and 1 MB summary, plus the bare cost of one cgo call
// and the output path (JSON reply + XML). Run from bindings/go:
//
//	go test -run='^$' -bench=. -benchtime=2s
//
// (-cpu=1,2 also shows how the parallel variants scale.)

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

func TestBenchmarkSummariesAreValid(t *testing.T) {
	for _, doc := range [][]byte{summary4KB, summary1MB} {
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
