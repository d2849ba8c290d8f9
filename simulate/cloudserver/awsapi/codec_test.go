package awsapi

import (
	"bytes"
	"encoding/xml"
	"math/rand"
	"net/url"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go/private/protocol/query/queryutil"
	"github.com/aws/aws-sdk-go/private/protocol/xml/xmlutil"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/aws/aws-sdk-go/service/elb"
	"github.com/aws/aws-sdk-go/service/elbv2"
	"github.com/google/go-cmp/cmp"
)

// sdkActions are the SDK clients and the actions of theirs the aws
// providers call (see providerActions), whose inputs and outputs the codec
// must carry.
func sdkActions(t *testing.T) []struct {
	name    string
	ec2     bool
	in, out reflect.Type
} {
	t.Helper()
	var out []struct {
		name    string
		ec2     bool
		in, out reflect.Type
	}
	clients := map[string]reflect.Type{"ec2": reflect.TypeOf(&ec2.EC2{}), "elasticloadbalancing": reflect.TypeOf(&elb.ELB{}),
		"elasticloadbalancingv2": reflect.TypeOf(&elbv2.ELBV2{})}
	for service, actions := range providerActions {
		client := clients[service]
		for _, name := range actions {
			m, ok := client.MethodByName(name)
			if !ok {
				t.Fatalf("%s has no action %s", client, name)
			}
			out = append(out, struct {
				name    string
				ec2     bool
				in, out reflect.Type
			}{service + " " + name, service == "ec2", m.Type.In(1).Elem(), m.Type.Out(0).Elem()})
		}
	}
	return out
}

// TestQueryDecodesWhatTheSDKEncodes: every input the providers send,
// filled at random, encoded by aws-sdk-go's query serialiser, decodes to
// itself with nothing left over.
func TestQueryDecodesWhatTheSDKEncodes(t *testing.T) {
	for _, a := range sdkActions(t) {
		for seed := range int64(5) {
			want := reflect.New(a.in)
			filler{rnd: rand.New(rand.NewSource(seed)), depth: 4}.fill(want.Elem(), 0)
			form := url.Values{}
			if err := queryutil.Parse(form, want.Interface(), a.ec2); err != nil {
				t.Fatalf("%s: the SDK's serialiser: %v", a.name, err)
			}
			// What crosses the wire is the form encoded.
			form, _ = url.ParseQuery(form.Encode())
			got := reflect.New(a.in)
			unknown, err := decodeQuery(form, got.Interface(), a.ec2)
			if err != nil {
				t.Fatalf("%s seed %d: %v", a.name, seed, err)
			}
			if len(unknown) > 0 {
				t.Errorf("%s seed %d: parameters left over: %v", a.name, seed, unknown)
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("%s seed %d: decoded differs (-want +got):\n%s", a.name, seed, cmp.Diff(want.Interface(), got.Interface()))
			}
		}
	}
}

// TestXMLReadsBackAsTheSDKReadsIt: every output the providers read,
// filled at random and written by xmlWriter inside its envelope, is what
// aws-sdk-go's XML reader makes of it.
func TestXMLReadsBackAsTheSDKReadsIt(t *testing.T) {
	for _, a := range sdkActions(t) {
		for seed := range int64(5) {
			want := reflect.New(a.out)
			filler{rnd: rand.New(rand.NewSource(seed)), depth: 4}.fill(want.Elem(), 0)
			var buf bytes.Buffer
			enc := xml.NewEncoder(&buf)
			x := xmlWriter{enc: enc}
			wrapper := ""
			err := x.wrap("Response", func() error {
				if a.ec2 {
					return x.fields(want)
				}
				wrapper = "Result"
				return x.wrap(wrapper, func() error { return x.fields(want) })
			})
			if err != nil || enc.Flush() != nil {
				t.Fatalf("%s: writing: %v", a.name, err)
			}
			got := reflect.New(a.out)
			if err := xmlutil.UnmarshalXML(got.Interface(), xml.NewDecoder(&buf), wrapper); err != nil {
				t.Fatalf("%s: the SDK's reader: %v\n%s", a.name, err, buf.String())
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("%s seed %d: read back differs (-want +got):\n%s", a.name, seed, cmp.Diff(want.Interface(), got.Interface()))
			}
		}
	}
}
