package loopcompact_test

import (
	"errors"
	"fmt"
	"log"

	lc "loopcompact.example/loopcompact"
)

// compact is the example of README.md (keep the two in step).
func compact(wire, reply []byte, outputTokens uint64) ([]byte, error) {
	in, err := lc.ParseInput(wire) // validated compaction input (SPEC §5)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	request, err := in.EncodeWithin(256 << 10) // the bytes to send to the summariser (§7)
	if err != nil {
		return nil, err
	}
	// ... send request, get the reply and its output token usage ...
	_ = request
	summary, err := in.ValidateOutput(reply, outputTokens, 64<<10) // §6
	if errors.Is(err, lc.StatusSummaryXMLContent) {
		log.Print("summariser left goal or state empty; retry")
	}
	return summary, err // summary: the text of the replacement user message
}

func Example() {
	summary, err := compact([]byte(testWire), testOutput(), 10)
	fmt.Println(string(summary[:22]), err)

	err = lc.ValidateSummaryXML([]byte("<summary/>"))
	var e *lc.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Name, e.Reason, errors.Is(err, lc.StatusSummaryXMLRoot))
	}
	// Output:
	// <conversation_summary> <nil>
	// LC_SUMMARY_XML_ROOT LC_SUMMARY_XML_ROOT xml_root true
}
