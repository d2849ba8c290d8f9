package amazon

import (
	"strings"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// attrs are a resource's values by EC2 filter name; tags are matched by
// "tag:<key>" and "tag-key" from its tags.
type attrs map[string][]string

// match applies EC2's filter semantics: every filter must hold, a filter
// holds when any of its values matches (with * and ? wildcards). A filter
// name the resource kind does not know is refused, as EC2 refuses it.
func match(filters []*ec2.Filter, a attrs, tags map[string]string, known []string) (bool, error) {
	for _, f := range filters {
		name := aws.StringValue(f.Name)
		have, err := values(name, a, tags, known)
		if err != nil {
			return false, err
		}
		if !anyMatches(aws.StringValueSlice(f.Values), have) {
			return false, nil
		}
	}
	return true, nil
}

func values(name string, a attrs, tags map[string]string, known []string) ([]string, error) {
	if key, ok := strings.CutPrefix(name, "tag:"); ok {
		if v, ok := tags[key]; ok {
			return []string{v}, nil
		}
		return nil, nil
	}
	if name == "tag-key" {
		keys := make([]string, 0, len(tags))
		for k := range tags {
			keys = append(keys, k)
		}
		return keys, nil
	}
	for _, k := range known {
		if k == name {
			return a[name], nil
		}
	}
	return nil, awsapi.Errorf("InvalidParameterValue", "The filter '%s' is invalid", name)
}

func anyMatches(patterns, have []string) bool {
	for _, p := range patterns {
		for _, h := range have {
			if wildcard(p, h) {
				return true
			}
		}
	}
	return false
}

// ec2Tags are tags in EC2's form, sorted by key.
func ec2Tags(tags map[string]string) []*ec2.Tag {
	out := make([]*ec2.Tag, 0, len(tags))
	for _, k := range sortedKeys(tags) {
		out = append(out, &ec2.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}

// wildcard: s matches p, where * is any run of characters and ? any one
// (EC2's filter wildcards; no escapes are needed by the providers).
func wildcard(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if wildcard(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}
