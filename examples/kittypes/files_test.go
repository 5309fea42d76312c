package kittypes_test

import (
	"encoding/json"
	"testing"

	"github.com/collectionkit/kit/examples/kittypes"
)

func TestAnImageFieldDecodesAFileOrALink(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       kittypes.KitFile
	}{
		{"a file kit keeps decodes its metadata", `{"image":{"name":"lamp.png","size":42,"contentType":"image/png","url":"/api/x?sig=1","width":4,"height":3}}`,
			kittypes.KitFile{Name: "lamp.png", Size: 42, ContentType: "image/png", URL: "/api/x?sig=1", Width: 4, Height: 3}},
		{"a URL string decodes as a file with that URL", `{"image":"https://cdn.example.com/a.png"}`, kittypes.KitFile{URL: "https://cdn.example.com/a.png"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p kittypes.Product
			if err := json.Unmarshal([]byte(tc.body), &p); err != nil {
				t.Fatal(err)
			}
			if p.Image == nil || *p.Image != tc.want {
				t.Errorf("got %+v, want %+v", p.Image, tc.want)
			}
		})
	}
}
