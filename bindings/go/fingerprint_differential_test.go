package loopcompact_test

// The Go path of the request fingerprint (internal/oracle: encoding/json into Go structs,
// json.Marshal, sha256.Sum256) against the vectors and the library through cgo. Every accepted row
// must give the row's digest both ways; on a rejected row the Go path must give the row's status,
// except on the rows of the divergences it does not implement (D1, D2, D6: see
// internal/oracle/fingerprint.go), which are skipped with their reason and counted.

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
	"github.com/loopcompact/loopcompact/bindings/go/internal/oracle"
)

// fingerprintGoGaps are the divergences (SPEC §11) the Go path leaves to encoding/json.
var fingerprintGoGaps = []string{"D1", "D2", "D6"}

func TestFingerprintGoPath(t *testing.T) {
	accepted, rejected, skipped := 0, 0, 0
	for _, r := range loadRows(t, filepath.Join(vectorDir, "fingerprint.jsonl")) {
		doc := r.doc(t, "input")
		digest, reason := oracle.RequestFingerprint(doc)
		if want := r.str("expect"); want != "ok" {
			if div := r.str("divergence"); div != "" && hasGap(div) {
				skipped++
				t.Logf("skipped %q: divergence %s (Go path %q, reference %q)", r.name(),
					strings.SplitN(div, ":", 2)[0], reason, r.str("expect_reference"))
				continue
			}
			rejected++
			if reason != want {
				t.Errorf("%s: Go path %q, want %q", r.name(), reason, want)
			}
			continue
		}
		accepted++
		if reason != "ok" {
			t.Errorf("%s: Go path rejects it: %s", r.name(), reason)
			continue
		}
		canonical, _ := oracle.CanonicalRequest(doc)
		if got := hex.EncodeToString(digest[:]); got != r.str("sha256") {
			t.Errorf("%s: Go path digest %s, want %s\ncanonical %s\nwant      %s", r.name(), got,
				r.str("sha256"), canonical, r.str("canonical_json"))
		}
		lib, err := lc.RequestFingerprint(doc)
		if err != nil || lib != lc.Fingerprint(digest) {
			t.Errorf("%s: library %s (%v), Go path %x", r.name(), lib, err, digest)
		}
	}
	t.Logf("fingerprint vectors: %d accepted rows equal (Go path = vector = library), %d rejected rows "+
		"with the same status, %d skipped (divergences %s not in the Go path)", accepted, rejected, skipped,
		strings.Join(fingerprintGoGaps, ", "))
	if accepted == 0 {
		t.Error("no accepted rows")
	}
}

func hasGap(divergence string) bool {
	for _, g := range fingerprintGoGaps {
		if strings.HasPrefix(divergence, g+":") || divergence == g {
			return true
		}
	}
	return false
}
