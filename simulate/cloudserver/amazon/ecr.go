package amazon

import (
	"context"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ecr"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
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
		Refusals: ecrRefusals, TLSOnly: true,
		Actions: []awsapi.Action{awsapi.Op("GetAuthorizationToken", f.getAuthorizationToken)},
	}
}

// registryTokenLife is how long a token is valid: "The authorization
// token is valid for 12 hours" (ECR's GetAuthorizationToken reference).
const registryTokenLife = 12 * time.Hour

// RegistryHost is the account's registry, as ECR names it.
func RegistryHost(region string) string { return account + ".dkr.ecr." + region + ".amazonaws.com" }

// ECRAPIHost is ECR's API endpoint in a region: the one the SDK resolves
// by default (aws-sdk-go's endpoints, "api.ecr"), which the image
// credential providers call without an override.
func ECRAPIHost(region string) string { return "api.ecr." + region + ".amazonaws.com" }

// getAuthorizationToken answers for the account's registry: its
// RegistryIds are deprecated, and "specifying a registry ID doesn't change
// the permissions scope of the authorization token" (aws-sdk-go's ecr).
func (f *Face) getAuthorizationToken(_ context.Context, c awsapi.Call, _ *ecr.GetAuthorizationTokenInput) (*ecr.GetAuthorizationTokenOutput, error) {
	expires := f.opts.Now().Add(registryTokenLife).Truncate(time.Second)
	password := ecrtoken.Password(f.opts.TokenKey, c.Key.Principal, expires)
	token := base64.StdEncoding.EncodeToString([]byte(ecrtoken.User + ":" + password))
	return &ecr.GetAuthorizationTokenOutput{AuthorizationData: []*ecr.AuthorizationData{{
		AuthorizationToken: aws.String(token), ExpiresAt: aws.Time(expires),
		ProxyEndpoint: aws.String("https://" + RegistryHost(f.opts.Network.Region)),
	}}}, nil
}
