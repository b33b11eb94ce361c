package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/generator"
)

// Every field the table names is a field of generator.Config: a renamed
// field would otherwise be shown by its Go name.
func TestFieldFlagsNameConfigFields(t *testing.T) {
	typ := reflect.TypeOf(generator.Config{})
	for field := range fieldFlags {
		ft := typ
		for _, name := range strings.Split(field, ".") {
			f, ok := ft.FieldByName(name)
			if !ok {
				t.Errorf("%s: generator.Config has no such field", field)
				break
			}
			ft = f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
		}
	}
}
