package provider

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Controllers as the audit log names them, by the canonical names both
// managers use (and leader migration filters on): which controller calls
// which method is fixed by the cloud-provider framework.
const (
	ctrlNode          = "cloud-node-controller"
	ctrlNodeLifecycle = "cloud-node-lifecycle-controller"
	ctrlService       = "service-lb-controller"
	ctrlRoute         = "node-route-controller"
	ctrlKubelet       = "kubelet"
)

// instanceFor finds a node's instance by ProviderID, else by name.
func (c *Cloud) instanceFor(ctx context.Context, controller string, node *v1.Node) (*api.Instance, error) {
	if node.Spec.ProviderID != "" {
		return c.client.InstanceByProviderID(ctx, controller, node.Spec.ProviderID)
	}
	return c.client.Instance(ctx, controller, node.Name)
}

// InstanceExists reports whether the node's instance still exists.
func (c *Cloud) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	inst, err := c.instanceFor(ctx, ctrlNodeLifecycle, node)
	if api.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return inst.State != api.StateTerminated, nil
}

// InstanceShutdown reports whether the node's instance is stopped.
func (c *Cloud) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	inst, err := c.instanceFor(ctx, ctrlNodeLifecycle, node)
	if err != nil {
		return false, err
	}
	return inst.State == api.StateStopped, nil
}

// InstanceMetadata is what the cloud node controller writes onto a new node.
func (c *Cloud) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	inst, err := c.instanceFor(ctx, ctrlNode, node)
	if err != nil {
		return nil, err
	}
	return &cloudprovider.InstanceMetadata{ProviderID: inst.ProviderID, InstanceType: inst.Type,
		NodeAddresses: addresses(inst), Zone: inst.Zone, Region: inst.Region}, nil
}

func addresses(inst *api.Instance) []v1.NodeAddress {
	out := make([]v1.NodeAddress, 0, len(inst.Addresses))
	for _, a := range inst.Addresses {
		out = append(out, v1.NodeAddress{Type: v1.NodeAddressType(a.Type), Address: a.Address})
	}
	return out
}

// instanceID is the part of a ProviderID after its scheme's "://".
func instanceID(providerID string) string {
	if _, id, ok := strings.Cut(providerID, "://"); ok {
		return id
	}
	return providerID
}

// instancesV1 is the older Instances interface in-tree kubelets call.
type instancesV1 struct{ c *Cloud }

func (i *instancesV1) get(ctx context.Context, name types.NodeName) (*api.Instance, error) {
	return i.c.client.Instance(ctx, ctrlKubelet, string(name))
}

func (i *instancesV1) byID(ctx context.Context, providerID string) (*api.Instance, error) {
	return i.c.client.InstanceByProviderID(ctx, ctrlKubelet, providerID)
}

func (i *instancesV1) NodeAddresses(ctx context.Context, name types.NodeName) ([]v1.NodeAddress, error) {
	inst, err := i.get(ctx, name)
	if err != nil {
		return nil, err
	}
	return addresses(inst), nil
}

func (i *instancesV1) NodeAddressesByProviderID(ctx context.Context, providerID string) ([]v1.NodeAddress, error) {
	inst, err := i.byID(ctx, providerID)
	if err != nil {
		return nil, err
	}
	return addresses(inst), nil
}

func (i *instancesV1) InstanceID(ctx context.Context, name types.NodeName) (string, error) {
	inst, err := i.get(ctx, name)
	if api.IsNotFound(err) {
		return "", cloudprovider.InstanceNotFound
	}
	if err != nil {
		return "", err
	}
	return instanceID(inst.ProviderID), nil
}

func (i *instancesV1) InstanceType(ctx context.Context, name types.NodeName) (string, error) {
	inst, err := i.get(ctx, name)
	if err != nil {
		return "", err
	}
	return inst.Type, nil
}

func (i *instancesV1) InstanceTypeByProviderID(ctx context.Context, providerID string) (string, error) {
	inst, err := i.byID(ctx, providerID)
	if err != nil {
		return "", err
	}
	return inst.Type, nil
}

func (i *instancesV1) AddSSHKeyToAllInstances(context.Context, string, []byte) error {
	return cloudprovider.NotImplemented
}

func (i *instancesV1) CurrentNodeName(_ context.Context, hostname string) (types.NodeName, error) {
	return types.NodeName(hostname), nil
}

func (i *instancesV1) InstanceExistsByProviderID(ctx context.Context, providerID string) (bool, error) {
	inst, err := i.byID(ctx, providerID)
	if api.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return inst.State != api.StateTerminated, nil
}

func (i *instancesV1) InstanceShutdownByProviderID(ctx context.Context, providerID string) (bool, error) {
	inst, err := i.byID(ctx, providerID)
	if err != nil {
		return false, err
	}
	return inst.State == api.StateStopped, nil
}

// GetZone is the zone of the machine the caller runs on.
func (c *Cloud) GetZone(ctx context.Context) (cloudprovider.Zone, error) {
	if c.self == "" {
		return cloudprovider.Zone{}, fmt.Errorf("cannot tell which instance this is")
	}
	inst, err := c.client.Instance(ctx, ctrlKubelet, c.self)
	if err != nil {
		return cloudprovider.Zone{}, err
	}
	return cloudprovider.Zone{FailureDomain: inst.Zone, Region: inst.Region}, nil
}

// GetZoneByProviderID is the zone of an instance by ProviderID.
func (c *Cloud) GetZoneByProviderID(ctx context.Context, providerID string) (cloudprovider.Zone, error) {
	inst, err := c.client.InstanceByProviderID(ctx, ctrlNode, providerID)
	if err != nil {
		return cloudprovider.Zone{}, err
	}
	return cloudprovider.Zone{FailureDomain: inst.Zone, Region: inst.Region}, nil
}

// GetZoneByNodeName is the zone of an instance by node name.
func (c *Cloud) GetZoneByNodeName(ctx context.Context, name types.NodeName) (cloudprovider.Zone, error) {
	inst, err := c.client.Instance(ctx, ctrlNode, string(name))
	if err != nil {
		return cloudprovider.Zone{}, err
	}
	return cloudprovider.Zone{FailureDomain: inst.Zone, Region: inst.Region}, nil
}
