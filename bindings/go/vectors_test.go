package loopcompact_test

// Runs every public conformance vector file through the Go binding, row by row as SPEC V12.3
// maps it to a call. The rows are read with json.Decoder.UseNumber so that u64 values above 2^53
// stay exact (V12.4).

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

const (
	vectorDir = "../../tests/vectors"
	peerFile  = "../../../shared/vectors/peer_jsontestsuite.jsonl"
)

type row map[string]any

func loadRows(t testing.TB, path string) []row {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	var rows []row
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var r row
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return rows
}

func (r row) name() string { return r.str("name") }

func (r row) str(key string) string {
	s, _ := r[key].(string)
	return s
}

// bytes reads a byte field given as `key` (UTF-8 text) or `key_base64` (V12.2).
func (r row) bytes(t testing.TB, key string) []byte {
	t.Helper()
	if s, ok := r[key].(string); ok {
		return []byte(s)
	}
	if s, ok := r[key+"_base64"].(string); ok {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("%s: bad %s_base64: %v", r.name(), key, err)
		}
		return b
	}
	t.Fatalf("%s: no field %q", r.name(), key)
	return nil
}

func (r row) u64(t *testing.T, key string) uint64 {
	t.Helper()
	return numU64(t, r.name(), key, r[key])
}

func numU64(t *testing.T, name, key string, v any) uint64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%s: field %q is not a number: %v", name, key, v)
	}
	u, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		t.Fatalf("%s: field %q: %v", name, key, err)
	}
	return u
}

func (r row) i64(t *testing.T, key string) int64 {
	t.Helper()
	n, ok := r[key].(json.Number)
	if !ok {
		t.Fatalf("%s: field %q is not a number", r.name(), key)
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		t.Fatalf("%s: field %q: %v", r.name(), key, err)
	}
	return i
}

// doc returns the row's document, nil for null_ptr rows (the binding passes every empty slice as
// (NULL, 0), so null_ptr and "" rows make the same call).
func (r row) doc(t testing.TB, key string) []byte {
	t.Helper()
	if r["null_ptr"] == true {
		return nil
	}
	return r.bytes(t, key)
}

// Codes each function may return besides LC_OK and the boundary codes (SPEC A3.9).
var (
	summaryCodes     = statusRange(206, 209)
	inputCodes       = statusRange(100, 105)
	encodeCodes      = []lc.Status{lc.StatusInputTooLarge}
	outputCodes      = append([]lc.Status{200, 201}, statusRange(203, 209)...)
	policyCodes      = statusRange(300, 308)
	observationCodes = statusRange(320, 323)
	configCodes      = append(append(statusRange(340, 347), statusRange(301, 308)...), statusRange(321, 323)...)
	limitsCodes      = []lc.Status{lc.StatusLimitsUnknown}
	occupancyCodes   = []lc.Status{lc.StatusOccupancyZeroLimit}
	replacementCodes = []lc.Status{lc.StatusSummaryTooLarge}
	fingerprintCodes = statusRange(400, 407)
)

func statusRange(lo, hi lc.Status) []lc.Status {
	var s []lc.Status
	for c := lo; c <= hi; c++ {
		s = append(s, c)
	}
	return s
}

// expectReason checks err against the row's `expect` ("ok" or a reason string) within codes.
func expectReason(t *testing.T, r row, err error, codes []lc.Status) {
	t.Helper()
	want := r.str("expect")
	if want == "ok" {
		if err != nil {
			t.Errorf("%s: want ok, got %v", r.name(), err)
		}
		return
	}
	var e *lc.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: want %s, got %v", r.name(), want, err)
		return
	}
	if e.Reason != want || !slices.Contains(codes, e.Status) {
		t.Errorf("%s: want %s, got %s (%d, %q)", r.name(), want, e.Name, e.Status, e.Reason)
	}
	if !errors.Is(err, e.Status) {
		t.Errorf("%s: errors.Is(err, %s) is false", r.name(), e.Name)
	}
}

func TestVectorsSummaryXML(t *testing.T) {
	for _, r := range loadRows(t, filepath.Join(vectorDir, "summary_xml.jsonl")) {
		expectReason(t, r, lc.ValidateSummaryXML(r.doc(t, "xml")), summaryCodes)
	}
}

func TestVectorsInput(t *testing.T) {
	runInputRows(t, loadRows(t, filepath.Join(vectorDir, "input.jsonl")))
}

func TestVectorsPeerJSONTestSuite(t *testing.T) {
	if _, err := os.Stat(peerFile); err != nil {
		t.Skipf("%s not present (it lives in the shared contract directory)", peerFile)
	}
	runInputRows(t, loadRows(t, peerFile))
}

func runInputRows(t *testing.T, rows []row) {
	for _, r := range rows {
		doc := r.doc(t, "input")
		switch kind := r.str("kind"); kind {
		case "decode":
			err := lc.ValidateInput(doc)
			expectReason(t, r, err, inputCodes)
			in, perr := lc.ParseInput(doc)
			if !sameStatus(err, perr) {
				t.Errorf("%s: validate gives %v but parse gives %v", r.name(), err, perr)
			}
			if (perr == nil) != (in != nil) {
				t.Errorf("%s: parse returned handle %v with error %v", r.name(), in, perr)
			}
			in.Close()
		case "fit":
			in, err := lc.ParseInput(doc)
			if err != nil {
				t.Errorf("%s: parse: %v", r.name(), err)
				continue
			}
			got, err := in.EncodeWithin(r.u64(t, "max_bytes"))
			expectReason(t, r, err, encodeCodes)
			if err == nil && string(got) != r.str("fitted") {
				t.Errorf("%s: fitted bytes differ:\n got %q\nwant %q", r.name(), got, r.str("fitted"))
			}
			in.Close()
		default:
			t.Errorf("%s: unknown kind %q", r.name(), kind)
		}
	}
}

func sameStatus(a, b error) bool {
	var ea, eb *lc.Error
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return errors.As(a, &ea) && errors.As(b, &eb) && ea.Status == eb.Status
}

func TestVectorsOutput(t *testing.T) {
	for _, r := range loadRows(t, filepath.Join(vectorDir, "output.jsonl")) {
		in, err := lc.ParseInput(r.bytes(t, "input_wire"))
		if err != nil {
			t.Errorf("%s: input_wire: %v", r.name(), err)
			continue
		}
		summary, err := in.ValidateOutput(r.doc(t, "output"), r.u64(t, "output_tokens"), r.u64(t, "max_output_bytes"))
		expectReason(t, r, err, outputCodes)
		if err == nil && string(summary) != r.str("summary") {
			t.Errorf("%s: summary differs:\n got %q\nwant %q", r.name(), summary, r.str("summary"))
		}
		in.Close()
	}
}

func TestVectorsPolicy(t *testing.T) {
	for _, r := range loadRows(t, filepath.Join(vectorDir, "policy.jsonl")) {
		switch kind := r.str("kind"); kind {
		case "compaction_policy":
			q := lc.CounterQuality(r.i64(t, "counter_quality"))
			expectReason(t, r, lc.ValidateCompactionPolicy(r.doc(t, "policy"), q), policyCodes)
		case "observation_policy":
			q := lc.CounterQuality(r.i64(t, "counter_quality"))
			expectReason(t, r, lc.ValidateContextObservation(r.doc(t, "policy"), q), observationCodes)
		case "context_config":
			err := lc.ValidateContextConfig(r.doc(t, "config"))
			got := lc.StatusOK
			var e *lc.Error
			if errors.As(err, &e) {
				got = e.Status
			} else if err != nil {
				t.Errorf("%s: unexpected error type %T", r.name(), err)
			}
			if got.Name() != r.str("expect_status") || (got != lc.StatusOK && !slices.Contains(configCodes, got)) {
				t.Errorf("%s: want %s, got %s", r.name(), r.str("expect_status"), got.Name())
			}
		case "resolve_limits":
			lim, _ := r["limits"].(map[string]any)
			limits := lc.ContextLimits{
				WindowTokens:    numU64(t, r.name(), "window_tokens", lim["window_tokens"]),
				MaxInputTokens:  numU64(t, r.name(), "max_input_tokens", lim["max_input_tokens"]),
				MaxOutputTokens: numU64(t, r.name(), "max_output_tokens", lim["max_output_tokens"]),
			}
			got, err := lc.ResolveLimits(limits, r.u64(t, "reserved_output"), r.u64(t, "safety_margin"))
			expectReason(t, r, err, limitsCodes)
			if err == nil {
				out, _ := r["out"].(map[string]any)
				want := lc.ResolvedLimits{
					ReservedOutput: numU64(t, r.name(), "reserved_output", out["reserved_output"]),
					RawInputLimit:  numU64(t, r.name(), "raw_input_limit", out["raw_input_limit"]),
					InputLimit:     numU64(t, r.name(), "input_limit", out["input_limit"]),
				}
				if got != want {
					t.Errorf("%s: got %+v, want %+v", r.name(), got, want)
				}
			}
		case "occupancy":
			got, err := lc.OccupancyBasisPoints(r.u64(t, "used"), r.u64(t, "limit"))
			expectReason(t, r, err, occupancyCodes)
			if err == nil && uint64(got) != r.u64(t, "out") {
				t.Errorf("%s: got %d, want %d", r.name(), got, r.u64(t, "out"))
			}
		case "pressure":
			got := lc.PressureLevel(lc.Level(r.i64(t, "previous_level")), uint16(r.u64(t, "occupancy")),
				r["automatic"] == true, uint16(r.u64(t, "compact_at")), uint16(r.u64(t, "rearm_below")))
			if want := lc.Level(r.i64(t, "expect")); got != want {
				t.Errorf("%s: got level %d, want %d", r.name(), got, want)
			}
		case "replacement":
			err := lc.CheckReplacement(r.u64(t, "input_tokens"), r.u64(t, "input_limit"))
			expectReason(t, r, err, replacementCodes)
		default:
			t.Errorf("%s: unknown kind %q", r.name(), kind)
		}
	}
}

func TestVectorsFingerprint(t *testing.T) {
	for _, r := range loadRows(t, filepath.Join(vectorDir, "fingerprint.jsonl")) {
		got, err := lc.RequestFingerprint(r.doc(t, "input"))
		expectReason(t, r, err, fingerprintCodes)
		if err == nil {
			if got.String() != r.str("sha256") {
				t.Errorf("%s: fingerprint %s, want %s", r.name(), got, r.str("sha256"))
			}
			if _, err := hex.DecodeString(r.str("sha256")); err != nil {
				t.Errorf("%s: bad sha256 field: %v", r.name(), err)
			}
		}
	}
}
