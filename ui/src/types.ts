// The shapes of kgmem's REST API (api/openapi.json) that the explorer reads.

export interface DecayState {
  stability?: number;
  last_reinforced_at?: string;
  reinforcements?: number;
  pinned?: boolean;
  forgotten_at?: string;
}

export interface Episode {
  id: string;
  namespace: string;
  thread_id: string;
  message_id: string;
  role?: string;
  name?: string;
  content: string;
  timestamp: string;
  created_at: string;
  decay: DecayState;
}

export interface Entity {
  id: string;
  namespace: string;
  name: string;
  type: string;
  aliases?: string[];
  summary?: string;
  created_at: string;
  decay: DecayState;
}

export type FactStatus = "current" | "upcoming" | "ended" | "invalidated";

export interface Fact {
  id: string;
  namespace: string;
  subject_id: string;
  subject: string;
  subject_type?: string;
  predicate: string;
  object_id: string;
  object: string;
  object_type?: string;
  fact: string;
  confidence: number;
  importance: number;
  episodes?: string[];
  valid_at?: string;
  invalid_at?: string;
  created_at: string;
  expired_at?: string;
  decay: DecayState;
  status: FactStatus;
}

export interface SourceScore {
  retriever: string;
  rank: number;
  score: number;
  contribution?: number;
}

export interface Score {
  final: number;
  relevance: number;
  retention: number;
  decay_weight: number;
  sources: SourceScore[];
}

export interface GraphNode {
  id: string;
  name: string;
  type: string;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  predicate: string;
  fact: string;
  status: FactStatus;
}

export interface ResultGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface SearchResult {
  facts: (Fact & { score: Score; provenance?: Episode[] })[];
  episodes: (Episode & { score: Score })[];
  entities: (Entity & { score: Score })[];
  graph: ResultGraph;
  context: string;
  warnings?: string[];
}

export interface SearchRequest {
  namespace: string;
  query: string;
  limit?: number;
  as_of?: string;
  include_history?: boolean;
  include_forgotten?: boolean;
  reinforce?: boolean;
}

export type Kind = "fact" | "entity" | "episode";

export interface Ref {
  kind: Kind;
  id: string;
}

export interface Strength {
  kind: Kind;
  id: string;
  retention: number;
  weight: number;
  stability_days: number;
  age_days: number;
  pinned: boolean;
  due: boolean;
  forget_after_days?: number;
  decay: DecayState;
  curve: { days: number; retention: number }[];
}

export interface DecayParams {
  enabled: boolean;
  floor: number;
  forget_threshold: number;
  [key: string]: unknown;
}

export interface Settings {
  decay: DecayParams;
  [key: string]: unknown;
}

export interface SweepStats {
  [kind: string]: unknown;
}

export interface Job {
  id: string;
  namespace: string;
  thread_id: string;
  status: "queued" | "running" | "succeeded" | "failed";
  progress: { messages: number; stored: number };
  error?: string;
  coalesced_with?: string[];
  created_at: string;
  started_at?: string;
  finished_at?: string;
  result?: { facts?: unknown[]; usage?: { calls: number; prompt_tokens: number; completion_tokens: number } };
}

export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  field?: string;
}
