// Package tomlkeys is the table of a struct's TOML keys, the toml tags of
// its fields and of the structs it embeds: generator.Config's are the keys of
// rsgen.toml (generator.ReadSite) and rsgen build's flags, which cannot drift.
package tomlkeys

import (
	"reflect"
	"slices"
)

// A Table is the keys of a struct type and the field of each.
type Table struct {
	Keys   []string
	Fields map[string]reflect.StructField // Index is from the struct itself
}

// Of is the table of the struct type t.
func Of(t reflect.Type) Table {
	tab := Table{Fields: map[string]reflect.StructField{}}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			sf.Index = append(slices.Clone(index), i)
			if k := sf.Tag.Get("toml"); k != "" && k != "-" {
				tab.Keys, tab.Fields[k] = append(tab.Keys, k), sf
			} else if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, sf.Index)
			}
		}
	}
	walk(t, nil)
	return tab
}

// Copy sets the fields of *dst that keys name to those of *src.
func (tab Table) Copy(dst, src any, keys ...string) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for _, k := range keys {
		if f, ok := tab.Fields[k]; ok {
			d.FieldByIndex(f.Index).Set(s.FieldByIndex(f.Index))
		}
	}
}
