package amazon

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// Tags added to and removed from any resource (the tagging controller
// tags instances; the load-balancer code tags security groups).

func (f *Face) createTags(_ context.Context, _ awsapi.Call, in *ec2.CreateTagsInput) (*ec2.CreateTagsOutput, error) {
	if len(in.Resources) == 0 || len(in.Tags) == 0 {
		return nil, awsapi.Errorf("MissingParameter", "CreateTags needs Resources and Tags")
	}
	return &ec2.CreateTagsOutput{}, f.state.Change(func(d *stateData) error {
		for _, id := range aws.StringValueSlice(in.Resources) {
			if d.Tags[id] == nil {
				d.Tags[id] = map[string]string{}
			}
			for _, t := range in.Tags {
				k := aws.StringValue(t.Key)
				d.Tags[id][k] = aws.StringValue(t.Value)
				d.Deleted[id] = slices.DeleteFunc(d.Deleted[id], func(x string) bool { return x == k })
			}
		}
		return nil
	})
}

// deleteTags removes the tags named (with a value given, only if it is
// the tag's value), as EC2 does.
func (f *Face) deleteTags(_ context.Context, _ awsapi.Call, in *ec2.DeleteTagsInput) (*ec2.DeleteTagsOutput, error) {
	return &ec2.DeleteTagsOutput{}, f.state.Change(func(d *stateData) error {
		for _, id := range aws.StringValueSlice(in.Resources) {
			for _, t := range in.Tags {
				k := aws.StringValue(t.Key)
				if v, ok := d.Tags[id][k]; ok && (t.Value == nil || aws.StringValue(t.Value) == v) {
					delete(d.Tags[id], k)
				}
				if t.Value == nil && !slices.Contains(d.Deleted[id], k) {
					d.Deleted[id] = append(d.Deleted[id], k)
				}
			}
		}
		return nil
	})
}
