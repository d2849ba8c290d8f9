package amazon

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// ProviderConfig is the aws providers' cloud-config (the gcfg file both
// read: CloudConfig in legacy-cloud-providers aws/aws.go and
// cloud-provider-aws pkg/providers/v1/aws.go) that points them at this
// cloud: a [ServiceOverride] per service they reach, the instance metadata
// service among them.
type ProviderConfig struct {
	Region string
	// AWS and IMDS are the face's addresses (http://host:port); IMDS ""
	// leaves the metadata service at EC2's own address.
	AWS, IMDS string
	// ClusterID, when set, is [Global] KubernetesClusterID; unset, the
	// providers read it from their own instance's cluster tag.
	ClusterID string
	// Global are further [Global] variables (name, value), in order: a
	// user's own, where a rehearsal runs with them.
	Global [][2]string
}

// overrides are the services the providers reach, by signing name, and
// where each is served. Without IMDS the metadata service is where EC2
// serves it, 169.254.169.254: no override.
func (c ProviderConfig) overrides() [][2]string {
	o := [][2]string{{"ec2", c.AWS + "/ec2"}, {"elasticloadbalancing", c.AWS + "/elasticloadbalancing"}}
	if c.IMDS != "" {
		o = append(o, [2]string{"ec2metadata", c.IMDS})
	}
	return o
}

// INI is the file. The metadata service's override applies only to a
// session whose region is Region: the providers' metadata client names
// none, so its callers need AWS_REGION set to it (see Env).
func (c ProviderConfig) INI() string {
	var b strings.Builder
	b.WriteString("[Global]\n")
	if c.ClusterID != "" {
		fmt.Fprintf(&b, "KubernetesClusterID = %s\n", c.ClusterID)
	}
	for _, v := range c.Global {
		fmt.Fprintf(&b, "%s = %s\n", v[0], quoted(v[1]))
	}
	for _, o := range c.overrides() {
		fmt.Fprintf(&b, "\n[ServiceOverride %q]\nService = %s\nRegion = %s\nURL = %s\nSigningRegion = %s\n", o[0], o[0], c.Region, o[1], c.Region)
	}
	return b.String()
}

// Env is what a manager or kubelet using the providers needs in its
// environment beside the file: its access key (the SDK's default
// credential chain reads these) and the region its metadata client
// resolves the override by.
func (c ProviderConfig) Env(key awsapi.Key) []string {
	return []string{"AWS_ACCESS_KEY_ID=" + key.ID, "AWS_SECRET_ACCESS_KEY=" + key.Secret, "AWS_REGION=" + c.Region}
}

// quoted is a gcfg value: in double quotes, with its quotes, backslashes,
// newlines and tabs escaped as gcfg reads them (read.go's unquote), so that
// any text reads back as itself.
func quoted(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(v) + `"`
}
