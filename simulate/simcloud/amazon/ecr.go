package amazon

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ecr"

	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// ecrRefusals are ECR's answers to the cloud's knobs (its API reference's
// common errors).
var ecrRefusals = awsapi.Refusals{
	Denied:      awsapi.Error{Status: http.StatusBadRequest, Code: "AccessDeniedException", Message: "User is not authorized to perform: ecr:GetAuthorizationToken"},
	Throttled:   awsapi.Error{Status: http.StatusBadRequest, Code: "ThrottlingException", Message: "Rate exceeded"},
	Unavailable: awsapi.Error{Status: http.StatusInternalServerError, Code: "ServerException", Message: "The request has failed due to a temporary failure of the server."},
}

// ecrService is the part of Elastic Container Registry that image
// credential providers call: the in-tree kubelet's (Kubernetes 1.26
// pkg/credentialprovider/aws) and ecr-credential-provider
// (cloud-provider-aws cmd/ecr-credential-provider) each ask
// GetAuthorizationToken and log in to the registry with what it gives.
func (f *Face) ecrService() awsapi.Service {
	return awsapi.Service{
		Name: "ecr", Protocol: awsapi.JSON11, TargetPrefix: "AmazonEC2ContainerRegistry_V20150921",
		Refusals: ecrRefusals,
		Actions:  []awsapi.Action{awsapi.Op("GetAuthorizationToken", f.getAuthorizationToken)},
	}
}

// registryTokenLife is how long a token is valid: "The authorization
// token is valid for 12 hours" (ECR's GetAuthorizationToken reference).
const registryTokenLife = 12 * time.Hour

// RegistryHost is the account's registry, as ECR names it.
func RegistryHost(region string) string { return account + ".dkr.ecr." + region + ".amazonaws.com" }

// getAuthorizationToken answers for the account's registry: its
// RegistryIds are deprecated, and "specifying a registry ID doesn't change
// the permissions scope of the authorization token" (aws-sdk-go's ecr).
func (f *Face) getAuthorizationToken(_ context.Context, c awsapi.Call, _ *ecr.GetAuthorizationTokenInput) (*ecr.GetAuthorizationTokenOutput, error) {
	expires := f.opts.Now().Add(registryTokenLife).Truncate(time.Second)
	password := RegistryPassword(f.opts.RegistryKey, c.Key.Principal, expires)
	token := base64.StdEncoding.EncodeToString([]byte("AWS:" + password))
	return &ecr.GetAuthorizationTokenOutput{AuthorizationData: []*ecr.AuthorizationData{{
		AuthorizationToken: aws.String(token), ExpiresAt: aws.Time(expires),
		ProxyEndpoint: aws.String("https://" + RegistryHost(f.opts.Network.Region)),
	}}}, nil
}

// RegistryPassword is the password a token carries for user AWS: who it
// was issued to and until when, signed with the cloud's registry key, so
// the registry can check it without asking the cloud.
func RegistryPassword(key []byte, principal string, expires time.Time) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(expires.Unix()))
	claim := base64.RawURLEncoding.EncodeToString(b[:]) + "." + principal
	return claim + "." + base64.RawURLEncoding.EncodeToString(registryMAC(key, claim))
}

// VerifyRegistryPassword says whom a password was issued to, if the
// cloud's key signed it and it has not expired.
func VerifyRegistryPassword(key []byte, password string, now time.Time) (principal string, ok bool) {
	i := strings.LastIndexByte(password, '.')
	if i < 0 {
		return "", false
	}
	claim, sig := password[:i], password[i+1:]
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, registryMAC(key, claim)) {
		return "", false
	}
	exp, who, found := strings.Cut(claim, ".")
	raw, err := base64.RawURLEncoding.DecodeString(exp)
	if !found || err != nil || len(raw) != 8 || !now.Before(time.Unix(int64(binary.BigEndian.Uint64(raw)), 0)) {
		return "", false
	}
	return who, true
}

func registryMAC(key []byte, claim string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(claim))
	return m.Sum(nil)
}
