package azure

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// What every ARM resource shares: its list pages, etags, request bodies
// and the fields ARM sets on a resource itself.

// maxBody bounds a request's body: a load balancer of a few hundred
// rules is a few hundred KiB.
const maxBody = 4 << 20

// page answers a list: {"value": [...]} and, when more remain, a nextLink
// carrying the api-version and where to go on ($skiptoken), which the
// providers follow as given (track-1 list results' nextLink preparers add
// nothing to it).
func (f *Face) page(c *call, items []any) (any, error) {
	from, _ := strconv.Atoi(c.r.URL.Query().Get("$skiptoken"))
	from = min(max(from, 0), len(items))
	to := min(from+f.opts.PageSize, len(items))
	out := map[string]any{"value": append([]any{}, items[from:to]...)}
	if to < len(items) {
		scheme := "http"
		if c.r.TLS != nil {
			scheme = "https"
		}
		q := url.Values{"api-version": {c.version}, "$skiptoken": {strconv.Itoa(to)}}
		out["nextLink"] = scheme + "://" + c.r.Host + c.r.URL.Path + "?" + q.Encode()
	}
	return out, nil
}

// etagOf is the etag of a resource's content: W/"<a UUID of its hash>",
// ARM's form, new whenever the content changes.
func etagOf(v any) string {
	raw, _ := json.Marshal(v)
	sum := sha256.Sum256(raw)
	h := hex.EncodeToString(sum[:16])
	return `W/"` + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32] + `"`
}

// ifMatch refuses a write whose If-Match is not the resource's etag
// ("*" matches any existing resource; a missing resource matches none).
func ifMatch(r *http.Request, etag string, exists bool) *armError {
	want := r.Header.Get("If-Match")
	switch {
	case want == "":
		return nil
	case !exists:
		return errPrecondition(want)
	case want == "*" || want == etag:
		return nil
	}
	return errPrecondition(want)
}

// body reads a PUT's resource.
func body(r *http.Request) (resource, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, errBody(err)
	}
	var res resource
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, errBody(err)
	}
	if res == nil {
		return nil, errBody(io.ErrUnexpectedEOF)
	}
	return res, nil
}

// props is a resource's properties, made if absent.
func props(res resource) map[string]any {
	p, ok := res["properties"].(map[string]any)
	if !ok {
		p = map[string]any{}
		res["properties"] = p
	}
	return p
}

// settle sets what ARM sets on a resource it stores: its ID, name and
// type, provisioningState, and its etag (of the rest).
func settle(res resource, id, name, typ string) resource {
	res["id"], res["name"], res["type"] = id, name, typ
	delete(res, "etag")
	props(res)["provisioningState"] = "Succeeded"
	res["etag"] = etagOf(res)
	return res
}

// requireLocation refuses a new resource without a location, as ARM
// refuses any tracked resource's.
func requireLocation(res resource) *armError {
	if l, _ := res["location"].(string); strings.TrimSpace(l) == "" {
		return errorf(http.StatusBadRequest, "LocationRequired", "The location property is required for this definition.")
	}
	return nil
}

// key is a name as the state keys it: ARM's names are case-insensitive.
func key(name string) string { return strings.ToLower(name) }

// ids are the "id" fields of a list of references.
func ids(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			if id, ok := m["id"].(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
