package derived

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/handover-sh/handover/rehearsal"
)

// File is a derived rehearsal file.
type File struct {
	Config rehearsal.Config
	// From says where a field came from, by its key in the rehearsal file;
	// "key.sub" for a key of a mapping (leaderMigration.ccm).
	From map[string]string
	// Header is the file's opening comment, lines without "#".
	Header string
}

// YAML is the rehearsal file: the header, then the fields, each with where
// it came from. `handover rehearse --config` reads it.
func (f File) YAML() ([]byte, error) {
	raw, err := json.Marshal(f.Config)
	if err != nil {
		return nil, fmt.Errorf("the derived rehearsal: %w", err)
	}
	// JSON is YAML: parsed as a node tree, the fields keep the order of
	// the rehearsal file's struct and can carry comments.
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the derived rehearsal: %w", err)
	}
	top := doc.Content[0]
	blockStyle(top)
	top.Content = dropEmpty(top.Content)
	for i := 0; i+1 < len(top.Content); i += 2 {
		key := top.Content[i]
		if from, ok := f.From[key.Value]; ok {
			key.HeadComment = from
		}
		for sub, from := range f.From {
			if k, side, ok := strings.Cut(sub, "."); ok && k == key.Value {
				commentKey(top.Content[i+1], side, from)
			}
		}
	}
	doc.HeadComment = f.Header
	var b bytes.Buffer
	enc := yamlv3.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("the derived rehearsal: %w", err)
	}
	return b.Bytes(), enc.Close()
}

// Rehearsal is the file as `handover rehearse --config` reads it from
// path: over the defaults, the paths in it relative to path's directory.
func (f File) Rehearsal(path string) (rehearsal.Config, error) {
	raw, err := f.YAML()
	if err != nil {
		return rehearsal.Config{}, err
	}
	return rehearsal.Parse(raw, path)
}

// Verdict is the comment that closes a printed file: whether `handover
// rehearse --config` takes it on this machine, as read from path.
func (f File) Verdict(path string) string {
	cfg, err := f.Rehearsal(path)
	var p *rehearsal.Plan
	if err == nil {
		p, err = cfg.Validate()
	}
	if err != nil {
		return "# handover rehearse --config refuses this file as it is: " + strings.Join(strings.Fields(err.Error()), " ")
	}
	return "# handover rehearse --config accepts this file here: " + p.String()
}

// blockStyle writes n in YAML's block style, quoting only where needed.
func blockStyle(n *yamlv3.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// dropEmpty leaves out the mapping's keys whose values are empty mappings
// (the rehearsal file's sections that nothing set).
func dropEmpty(kv []*yamlv3.Node) []*yamlv3.Node {
	var out []*yamlv3.Node
	for i := 0; i+1 < len(kv); i += 2 {
		if v := kv[i+1]; v.Kind == yamlv3.MappingNode && len(v.Content) == 0 {
			continue
		}
		out = append(out, kv[i], kv[i+1])
	}
	return out
}

// commentKey puts a comment on key in the mapping m.
func commentKey(m *yamlv3.Node, key, comment string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i].LineComment = comment
		}
	}
}
