// Package experiment runs the paper's sampling experiments (§4.1, appendix E)
// into a run store: a declarative Config names the tasks, methods, number of
// runs, the largest k, the model and its sampling settings, and Run samples
// the whole grid into mcmc/<name>/ through pkg/runs.
//
//	cfg, err := experiment.Load("experiments/quick.json")
//	sum, err := experiment.Run(ctx, cfg, experiment.Options{Progress: os.Stderr})
//
// A method is a value (package method): the names in Config.Methods
// resolve first to Options.Methods, a user's methods, then to the built-in
// ones, so that a proposal written in a notebook runs through the grid
// into the store, and through "gasp analyze" into tables and figures,
// beside the paper's:
//
//	floor := method.MCMC{Proposal: mcmc.ProposalFunc(myWeights)}
//	cfg.Methods = append(cfg.Methods, "mcmc-floor")
//	sum, err := experiment.Run(ctx, cfg, experiment.Options{Methods: map[string]method.Method{"mcmc-floor": floor}})
//
// (pkg/analysis tells a chain by its records, k = 0…K, whatever its name.)
//
// # Drawing from one task
//
// A Task is a model, a grammar's sampling configuration and a tokenized
// prompt; Task.Draw draws a Batch of runs of a method with the grid's
// seeds and returns run-store records. The grid builds its tasks on one
// shared model; OpenTask opens one alone, and Sample opens, draws and
// closes in one call, as "gasp sample", "gasp demo" and "gasp bench
// sample" do (see the package Example).
//
// # The grid
//
// Every task × method × run is one run of a sampler with its own random
// source, sample.NewRand(RunSeed(seed, task, method, run)), so a run's records
// are a function of its seed alone, whichever runs share its batch:
//
//	gcd             one GCD sample per run, k = 0
//	asap            one adaptive ASAp run of K samples: ASAp(k) at k = 1…K
//	mcmc-uniform,   one Metropolis–Hastings chain of K steps from a GCD
//	mcmc-priority,  sample: MCMC(k), the state after k steps, at k = 0…K
//	mcmc-restart,   (mcmc-priority is the authors' code's Priority, masked
//	mcmc-priority-pp  entropy, exp(H) − 1; mcmc-priority-pp the paper's
//	                text, p ∝ perplexity of P(·|x_{1:i}): mcmc.PriorityPP)
//	rejection       one attempt of rejection sampling per run, k = 0: the
//	                store's valid fraction is the acceptance rate
//	mcmc-mix-P      MCMC whose proposal restarts with probability P, else
//	                cuts as Priority (the authors' "mix-p")
//	cars, ars, rsft one exact sample of P^G per run, k = 0, at most
//	                method.ExactBudget attempts (rejections in the record); the
//	                runs of a batch share the trie of cars and ars, kept
//	                in the store (TriePath) so that later batches and
//	                resumed runs continue learning: their records depend
//	                on the trie as well as on the seed
//	smc, smc-N,     one SMC run of N particles (10 for smc) per run, k = 0:
//	smc-awrs-N      one particle drawn by weight; evals counts all N
//
// Runs are sampled in fixed batches of Config.Batch runs (one row each, in
// lockstep), in a fixed order: tasks by name, methods as listed, runs
// ascending. A batch is the unit of resuming (a batch with a missing record
// is sampled again and only its missing records appended) and of sharding
// (Options.Shard of Options.Shards takes every Shards-th batch). The store's
// experiment.json records the configuration; resuming with other sampling
// settings is refused, and so is a configuration whose grid does not hold
// the stored one: a store's grid may grow (more runs, a larger k, more
// methods or tasks, which experiment.json then records and the progress
// says), never shrink. A run checks and writes experiment.json under the
// store's lock, so that of two runs of other settings on one new store
// the second is refused; Merge checks its shards and destination the same
// way (see store.go). Every record carries the run's sampling settings
// (Config.RecordSettings, runs.Record.Settings), and the run, Merge and
// readers that open a store with StoreOptions refuse a record of other
// settings than its store's experiment.json, naming its file and line, so
// that records of two configurations in one store are never combined.
// Stored reads a store's experiment.json, strictly. Options.TaskTime bounds the time each (task,
// method) may take, stored batches included (checked between batches), for methods whose cost
// varies by orders of magnitude between tasks (cars); method.Parse and
// Task.Draw are the methods' single definition, which "gasp sample" uses
// too.
//
// Record fields follow mcmc/README.md. evals is the LM token evaluations of
// the run's own row (sample.Record.Evals, mcmc.Chain.EvalsAt), without the
// prompt's prefill, which a batch shares: for ASAp(k) the sum over the run's
// first k samples, for MCMC(k) the chain's start and first k steps.
// elapsed_ms is the batch's wall time. logp_gcd is sample.Record.LogQProb:
// log P_GCD for GCD and MCMC states, but for ASAp the log-probability under
// ASAp's own adjusted distribution and for rejection sampling log P.
//
// Models are opened by package model (model.Open); the grid checks every
// logit (lm.Finite).
package experiment
