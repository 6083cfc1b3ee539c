package loopcompact_test

// The Go constants are the header's: every #define of include/loopcompact.h is used through cgo
// (C.LC_…), no constant of the package is an integer written by hand, and each Go name maps to
// the define of its name.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

func headerDefines(t *testing.T) map[string]uint64 {
	t.Helper()
	defs := map[string]uint64{}
	re := regexp.MustCompile(`(?m)^#define (LC_[A-Z0-9_]+) (\d+)(?:ull)?$`)
	for _, m := range re.FindAllStringSubmatch(readHeader(t), -1) {
		v, err := strconv.ParseUint(m[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		defs[m[1]] = v
	}
	if len(defs) < 85 {
		t.Fatalf("found only %d LC_ defines in the header", len(defs))
	}
	return defs
}

func TestEveryHeaderConstantIsUsed(t *testing.T) {
	src := packageSource(t)
	for name := range headerDefines(t) {
		if !strings.Contains(src, "C."+name) {
			t.Errorf("%s is not used through cgo", name)
		}
	}
}

// ownConstants are numeric constants of the package that are no value of the header, with why.
var ownConstants = map[string]string{
	"SourceSystem": "Go's own spelling of LC_SOURCE_SYSTEM: -1, since SPEC G16.11 wants no UINT64_MAX index in a host",
}

// TestNoConstantIsWrittenByHand checks that every numeric constant of the package (non-test files)
// is a C.LC_ define of the header, so no header value is copied by hand (`LevelNormal = 1`), where
// it could drift from the library's; string constants are allowed, and ownConstants.
func TestNoConstantIsWrittenByHand(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			decl, ok := n.(*ast.GenDecl)
			if !ok || decl.Tok != token.CONST {
				return true
			}
			for _, spec := range decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						continue
					}
					if _, own := ownConstants[vs.Names[i].Name]; own {
						continue
					}
					if !isDefine(v) {
						t.Errorf("%s: constant %s is not a C.LC_ define", fset.Position(vs.Pos()), vs.Names[i])
					}
				}
			}
			return false
		})
	}
}

// isDefine reports an expression C.LC_NAME.
func isDefine(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "C" && strings.HasPrefix(sel.Sel.Name, "LC_")
}

func TestConstantsMatchTheirDefines(t *testing.T) {
	defs := headerDefines(t)
	for name, got := range map[string]uint64{
		"LC_ABI_VERSION":                          uint64(lc.HeaderABIVersion),
		"LC_FINGERPRINT_LEN":                      lc.FingerprintLen,
		"LC_OFFSET_UNKNOWN":                       lc.OffsetUnknown,
		"LC_LIMIT_UNKNOWN":                        lc.LimitUnknown,
		"LC_COUNTER_QUALITY_UNKNOWN":              uint64(lc.QualityUnknown),
		"LC_COUNTER_QUALITY_EXACT_PROVIDER":       uint64(lc.QualityExactProvider),
		"LC_COUNTER_QUALITY_EXACT_LOCAL":          uint64(lc.QualityExactLocal),
		"LC_COUNTER_QUALITY_HEURISTIC":            uint64(lc.QualityHeuristic),
		"LC_PRESSURE_UNKNOWN":                     uint64(lc.LevelUnknown),
		"LC_PRESSURE_NORMAL":                      uint64(lc.LevelNormal),
		"LC_PRESSURE_COMPACT":                     uint64(lc.LevelCompact),
		"LC_PRESSURE_HARD_LIMIT":                  uint64(lc.LevelHardLimit),
		"LC_CLASS_OK":                             uint64(lc.ClassOK),
		"LC_CLASS_RETRY":                          uint64(lc.ClassRetry),
		"LC_CLASS_DISCARD":                        uint64(lc.ClassDiscard),
		"LC_CLASS_HOST":                           uint64(lc.ClassHost),
		"LC_CLASS_BUG":                            uint64(lc.ClassBug),
		"LC_SECTION_NONE":                         uint64(lc.SectionNone),
		"LC_SECTION_GOAL":                         uint64(lc.SectionGoal),
		"LC_SECTION_CONSTRAINTS":                  uint64(lc.SectionConstraints),
		"LC_SECTION_DECISIONS":                    uint64(lc.SectionDecisions),
		"LC_SECTION_STATE":                        uint64(lc.SectionState),
		"LC_SECTION_OPEN_ITEMS":                   uint64(lc.SectionOpenItems),
		"LC_SECTION_ROOT":                         uint64(lc.SectionRoot),
		"LC_FORMAT_OPENAI_CHAT":                   uint64(lc.FormatOpenAIChat),
		"LC_FORMAT_OPENAI_RESPONSES":              uint64(lc.FormatOpenAIResponses),
		"LC_FORMAT_ANTHROPIC":                     uint64(lc.FormatAnthropic),
		"LC_FORMAT_GEMINI":                        uint64(lc.FormatGemini),
		"LC_FORMAT_AI_SDK":                        uint64(lc.FormatAISDK),
		"LC_FORMAT_LANGCHAIN":                     uint64(lc.FormatLangChain),
		"LC_LOSS_DROPPED_CACHE_CONTROL":           uint64(lc.LossDroppedCacheControl),
		"LC_LOSS_DROPPED_CITATIONS":               uint64(lc.LossDroppedCitations),
		"LC_LOSS_DROPPED_LOGPROBS":                uint64(lc.LossDroppedLogprobs),
		"LC_LOSS_DROPPED_NAME":                    uint64(lc.LossDroppedName),
		"LC_LOSS_DROPPED_MEDIA_OPTIONS":           uint64(lc.LossDroppedMediaOptions),
		"LC_LOSS_DROPPED_PROVIDER_OPTIONS":        uint64(lc.LossDroppedProviderOptions),
		"LC_LOSS_DROPPED_UNKNOWN_FIELD":           uint64(lc.LossDroppedUnknownField),
		"LC_LOSS_DOCUMENT_NOT_INLINE":             uint64(lc.LossDocumentNotInline),
		"LC_LOSS_AUDIO_REFERENCE_UNRESOLVABLE":    uint64(lc.LossAudioReferenceUnresolvable),
		"LC_LOSS_ARGUMENTS_UNPARSEABLE":           uint64(lc.LossArgumentsUnparseable),
		"LC_LOSS_DUPLICATE_ARGUMENT_KEY":          uint64(lc.LossDuplicateArgumentKey),
		"LC_LOSS_SYNTHESIZED_TOOL_ID":             uint64(lc.LossSynthesizedToolID),
		"LC_LOSS_SERVER_TOOL_UNREPRESENTABLE":     uint64(lc.LossServerToolUnrepresentable),
		"LC_LOSS_COMPACTION_ITEM_UNREPRESENTABLE": uint64(lc.LossCompactionItemUnrepresentable),
		"LC_LOSS_ITEM_REFERENCE_UNRESOLVABLE":     uint64(lc.LossItemReferenceUnresolvable),
		"LC_LOSS_TOOL_APPROVAL_DROPPED":           uint64(lc.LossToolApprovalDropped),
		"LC_LOSS_UNKNOWN_CONTENT_DROPPED":         uint64(lc.LossUnknownContentDropped),
		"LC_GRAMMAR_REGEX":                        uint64(lc.GrammarRegex),
		"LC_GRAMMAR_LARK":                         uint64(lc.GrammarLark),
		"LC_GRAMMAR_GBNF":                         uint64(lc.GrammarGBNF),
	} {
		if want, ok := defs[name]; !ok || got != want {
			t.Errorf("%s: Go has %d, the header %d (present %v)", name, got, want, ok)
		}
	}
	// Each loss code's name is the SPEC's (G16.8's table, written here by hand).
	for code, name := range map[lc.LossCode]string{
		lc.LossDroppedCacheControl: "dropped_cache_control", lc.LossDroppedCitations: "dropped_citations",
		lc.LossDroppedLogprobs: "dropped_logprobs", lc.LossDroppedName: "dropped_name",
		lc.LossDroppedMediaOptions: "dropped_media_options", lc.LossDroppedProviderOptions: "dropped_provider_options",
		lc.LossDroppedUnknownField: "dropped_unknown_field", lc.LossDocumentNotInline: "document_not_inline",
		lc.LossAudioReferenceUnresolvable: "audio_reference_unresolvable",
		lc.LossArgumentsUnparseable:       "arguments_unparseable", lc.LossDuplicateArgumentKey: "duplicate_argument_key",
		lc.LossSynthesizedToolID: "synthesized_tool_id", lc.LossServerToolUnrepresentable: "server_tool_unrepresentable",
		lc.LossCompactionItemUnrepresentable: "compaction_item_unrepresentable",
		lc.LossItemReferenceUnresolvable:     "item_reference_unresolvable", lc.LossToolApprovalDropped: "tool_approval_dropped",
		lc.LossUnknownContentDropped: "unknown_content_dropped",
	} {
		if code.Name() != name || code.String() != name {
			t.Errorf("loss %d is named %q, SPEC G16.8 says %q", int32(code), code.Name(), name)
		}
	}
	if n := lc.LossCode(0).Name(); n != "" || lc.LossCode(0).String() != "LossCode(0)" {
		t.Errorf("loss 0 is named %q", n)
	}
	for i, s := range lc.Sections {
		if want := []string{"goal", "constraints", "decisions", "state", "open_items"}[i]; s.String() != want {
			t.Errorf("Sections[%d] = %s, want %s", i, s, want)
		}
	}
}
