// Package decay is kgmem's forgetting curve: how strongly each fact, entity and
// episode is remembered, how recall and restatement strengthen it, and the
// sweep that soft-forgets what has faded.
//
// # The curve
//
// Every record carries a kgmem.DecayState: a stability S in days, the time of
// its last reinforcement, a reinforcement count, a pin flag and, once
// forgotten, the time it was forgotten. With t the days since the last
// reinforcement, retention is the FSRS power law
//
//	R(t) = (1 + F·t/S)^(−d),   F = 0.9^(−1/d) − 1,
//
// so that R(S) = 0.9 whatever d is: S reads as "days until recall drops to
// 90 %". The default d = 0.5 gives F = 19/81 and R(t) = (1 + 19t/81S)^(−1/2),
// the FSRS-4.5 curve. R is 1 for pinned items, for items at least as important
// as Params.EvergreenImportance, when decay is disabled, and when now is before
// the last reinforcement (a clock that went backwards): never above 1, never NaN.
//
// # Why a power law
//
// The anchors considered were MemoryBank's Ebbinghaus curve R = e^(−t/S) (S
// grows on recall), ACT-R's base-level activation B = ln Σⱼ tⱼ^(−d) over all
// past presentations, and FSRS's power law. An exponential has a thin tail: an
// item of importance 5 (S ≈ 5 days) tuned to the same R(S) = 0.9 keeps
// e^(−0.105·90/5) ≈ 0.15 after three months and ≈ 0.0005 after a year, so a
// months-old fact would sink out of reach; long-timeline benchmarks such as
// LoCoMo ask exactly about those. The power law keeps 0.44 after three months
// and 0.24 after a year: old facts are outranked by fresh, equally relevant
// ones, yet stay findable. ACT-R's sum is also heavy-tailed but needs every past
// recall time stored per item; FSRS folds that history into one number, S,
// which the stores already persist. FSRS's curve is also fitted on hundreds of
// millions of real reviews.
//
// # Stability
//
// A new item starts at S₀(i) = BaseStabilityDays · ImportanceGrowth^(i−1) for
// importance i in 1–10 (entities, episodes and facts without importance use
// DefaultImportance). Each reinforcement (restated by a new message, or
// returned by a search) multiplies it:
//
//	S' = min(MaxStabilityDays, S · (1 + Growth · e^(SpacingBonus·(1−R))))
//
// where R is the retention just before. A fresh item (R ≈ 1) grows by
// 1 + Growth (×1.2 by default); a nearly forgotten one (R ≈ 0.2) by
// 1 + Growth·e^(2.5·0.8) ≈ ×2.5: the spacing effect, recalling late
// strengthens most, as in FSRS's stability increase, whose factor grows with
// e^(w·(1−R)). Reinforcements within MassedWindowMinutes of the previous one
// count once, so a fact returned by every query of one chat does not compound.
//
// # Using it
//
// Search multiplies each hit's relevance by Model.Weight(R) = Floor +
// (1−Floor)·R: decay reorders but never zeroes. Sweep marks records whose R is
// below ForgetThreshold as forgotten (hidden from default search, never
// deleted); RestoreItems brings them back; PinItems pins and unpins. A
// Reinforcer applies recalls in the background, durably through a journal
// file. Params come per namespace from kgmem.NamespaceSettings.Decay
// (ParseParams, StoreModels). Time enters only through explicit now arguments
// and the Reinforcer's kgmem.Clock.
package decay
