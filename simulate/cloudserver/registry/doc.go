// Package registry is the simulated cloud's container registry, as ECR
// serves one: an OCI distribution registry (go-containerregistry's) at the
// account's registry name that answers only callers logging in as user AWS
// with a password ECR's GetAuthorizationToken issued, and, under ECR's API
// name, a relay to the cloud's AWS APIs so a node reaches both where the
// SDKs and the image credential providers look for them. It holds the
// images handover pushes into it at start; pushes from outside are refused.
package registry
