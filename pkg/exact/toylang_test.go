package exact

import "testing"

func TestToyLang(t *testing.T) {
	toys, err := Toys()
	if err != nil {
		t.Fatal(err)
	}
	for _, toy := range toys {
		l, err := toy.Lang(100000)
		if err != nil {
			t.Fatalf("%s: %v", toy.Name, err)
		}
		if l.Len() == 0 || l.Mass <= 0 || l.Mass > 1+1e-9 {
			t.Errorf("%s: %d sentences, mass %g", toy.Name, l.Len(), l.Mass)
		}
	}
}
