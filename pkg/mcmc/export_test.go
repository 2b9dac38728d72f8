package mcmc

// UseCutOnlyQ makes Run compute q from the drawn cut alone, the mistake
// that summing over every cut avoids: tests use it to show that the
// distribution tests notice.
func UseCutOnlyQ(c *Config) { c.wrongQ = cutOnlyQ }

// UseNoPositionQ makes Run leave p_pos out of q: q(y|x) is taken to be the
// GCD probability of the regenerated suffix alone.
func UseNoPositionQ(c *Config) { c.wrongQ = noPositionQ }
