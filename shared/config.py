"""One Settings object for every process, read from `PP_*` environment variables and `.env`.

Every service gets its configuration from here so that the embedded runtime, the external
mode and the compose deployment differ only in environment, never in code.
"""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class SimilarityThresholds(BaseModel):
    """Cosine-similarity cut-offs of one embedding model (docs/architecture.md §6)."""

    min_similarity: float = Field(ge=-1.0, le=1.0, description="Adaptive-k floor: chunks below it are dropped.")
    confidence_high: float = Field(ge=-1.0, le=1.0, description="Mean similarity of the used chunks for 'high'.")
    confidence_medium: float = Field(ge=-1.0, le=1.0, description="Mean similarity for 'medium'; below is 'low'.")
    sentence_answers: float = Field(
        0.5,
        ge=-1.0,
        le=1.0,
        description="Similarity of one sentence to the question from which it answers it, whatever its chunk's "
        "similarity (a one-page standard is one multi-topic chunk): such evidence is at least 'medium'.",
    )
    # Below it, any chunk tier is 'low': no sentence is about the question (services/actions/evidence.py).
    sentence_on_topic: float = Field(0.0, ge=-1.0, le=1.0, description="Closest sentence's similarity (0: off).")


# all-MiniLM-L6-v2: calibrated by `python -m bench.retrieval_eval` (docs/benchmarks.md); text-embedding-3-small: the
# design's 0.75/0.5, not re-calibrated (no API offline), `sentence_on_topic` off. Others use the MiniLM values.
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
SIMILARITY_THRESHOLDS: dict[str, SimilarityThresholds] = {
    "all-MiniLM-L6-v2": SimilarityThresholds(
        min_similarity=0.3, confidence_high=0.52, confidence_medium=0.33, sentence_answers=0.5, sentence_on_topic=0.4
    ),
    "text-embedding-3-small": SimilarityThresholds(
        min_similarity=0.3, confidence_high=0.75, confidence_medium=0.5, sentence_answers=0.6
    ),
}


class OidcProvider(BaseModel):
    """One tenant's OpenID Connect provider and how its users map to roles."""

    issuer: str = Field(description="Issuer URL; its /.well-known/openid-configuration is read.")
    client_id: str
    client_secret: str | None = Field(None, description="Unset for a public client (PKCE only).")
    name: str = Field("your identity provider", description="Shown on the sign-in button.")
    role_claim: str = Field("groups", description="Claim whose value(s) pick the role.")
    role_map: dict[str, Literal["user", "agent", "admin"]] = Field(
        default_factory=dict, description="Claim value → role; the first match in admin, agent, user order wins."
    )
    default_role: Literal["user", "agent", "admin"] | None = Field(
        "user", description="Role when no claim value matches; null refuses the sign-in."
    )
    scope: str = Field("openid email profile")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PP_", env_file=".env", extra="ignore")

    data_dir: Path = Field(Path(".policypal"), description="Embedded NATS/Postgres data and logs.")
    nats_url: str | None = Field(
        None, description="External NATS, one URL or a comma-separated list; unset → embedded server."
    )
    database_url: str | None = Field(
        None, description="Postgres URL the services use (application role, RLS enforced)."
    )
    database_admin_url: str | None = Field(None, description="Owner URL used by `migrate`; defaults to database_url.")
    db_app_role: str = Field("pp_app", description="Role the services log in as (no BYPASSRLS).")
    db_app_password: str | None = Field(None, description="Password set on the app role.")
    db_acquire_timeout_s: float = Field(
        1.0, gt=0, description="How long a request waits for a database connection before failing (503)."
    )
    db_reconnect_timeout_s: float = Field(
        3.0, gt=0, description="Horizon of the pool's reconnect backoff; short so recovery follows Postgres at once."
    )
    stream_replicas: int = Field(1, ge=1, le=5, description="JetStream replicas per stream (3 on a 3-node cluster).")
    nats_port: int = Field(4222, description="Port of the embedded NATS server.")
    subject_prefix: str = Field("pp", description="Prefix of every NATS subject and stream.")
    events_max_age_s: int = Field(24 * 3600, description="Retention of PP_EVENTS.")
    max_deliver: int = Field(5, description="Deliveries of a command before it goes to the DLQ.")
    outage_ride_out_s: float = Field(
        600.0,
        gt=0,
        description="A command failing because Postgres is down is held (not retried, not dead-lettered) until "
        "the database is back, for up to this long after it was published; then it is dead-lettered.",
    )
    ack_wait_s: float = Field(
        10.0,
        description="Lease of a command: a worker heartbeats every third of it while a stage runs, so a dead "
        "worker's command is redelivered within seconds (and inside the events' de-duplication window).",
    )
    rpc_timeout_s: float = Field(10.0, description="Timeout of NATS request-reply calls.")
    token_window_ms: int = Field(
        50, ge=0, le=1000, description="Token deltas said within this window go out as one event (0 = one per token)."
    )
    drain_timeout_s: float = Field(
        8.0, gt=0, description="On SIGTERM, seconds a worker waits for in-flight commands before it closes."
    )

    host: str = Field("127.0.0.1", description="Gateway bind address.")
    port: int = Field(8000, description="Gateway port.")
    secret_key: str | None = Field(
        None,
        min_length=32,
        description="HS256 key for JWTs (≥ 32 chars). Unset: `up` generates one in <data_dir>/secret_key.",
    )
    token_ttl_s: int = Field(7 * 24 * 3600, description="Lifetime of tokens minted by the CLI.")
    cors_origins: list[str] = Field(default_factory=list, description="Origins allowed by CORS (JSON list).")
    rate_limit_user_per_min: int = Field(120, ge=1, description="Chat/resume/upload requests per user per minute.")
    rate_limit_tenant_per_min: int = Field(1200, ge=1, description="The same per tenant, all users together.")
    rate_limit_tenant_creation_per_min: int = Field(
        10, ge=1, description="Tenants one platform operator may create per minute."
    )
    rate_limit_widget_init_per_min: int = Field(
        60, ge=1, description="Widget sessions opened per minute from one page origin (anonymous, so per origin)."
    )
    sse_keepalive_s: float = Field(15.0, description="Idle seconds before an SSE keep-alive.")
    turn_timeout_s: float = Field(300.0, description="Gateway gives up on a silent run after this.")
    attachment_wait_s: float = Field(
        900.0, gt=0, description="How long a turn waits for the files attached to its message to be read."
    )

    embedding_provider: Literal["local", "openai"] = Field(
        "local", description="Embedding provider: the bundled MiniLM, or an OpenAI-compatible endpoint."
    )
    embedding_model: str = Field(
        "all-MiniLM-L6-v2", description="Embedding model name (openai provider: e.g. text-embedding-3-small)."
    )
    embedding_dim: int = Field(384, description="Vector dimension fixed for this deployment.")
    embedding_batch: int = Field(16, ge=1, description="Texts per model call (local) or API request (openai).")
    embedding_precision: Literal["int8", "fp32"] = Field(
        "fp32",
        description=(
            "Local MiniLM on ONNX Runtime: fp32 (identical to sentence-transformers, a text's vector does not "
            "depend on its batch) or int8 (dynamically quantised: ~465 MB less, cosine ≥ 0.99 to fp32, but "
            "activations are quantised per batch, so a vector moves by ~0.005 with its batch mates)."
        ),
    )
    embedding_threads: int = Field(0, ge=0, description="ONNX Runtime intra-op threads of the embedder; 0 = auto.")
    model_dir: Path | None = Field(
        None, description="Where the exported ONNX model is cached; unset → <python prefix>/share/policypal/models."
    )
    embed_timeout_s: float = Field(
        8.0, gt=0, description="One pp.rpc.embed call; below PP_RPC_TIMEOUT_S so retrieval falls back in time."
    )
    embed_batch_window_ms: float = Field(
        3.0, ge=0, description="How long the embedding service collects concurrent requests into one batch."
    )
    embed_max_batch: int = Field(64, ge=1, description="Texts encoded in one batch by the embedding service.")
    embed_bulk_timeout_s: float = Field(
        120.0, gt=0, description="One bulk pp.rpc.embed call (ingest): it queues behind interactive ones."
    )
    embed_wait_s: float = Field(
        600.0, ge=0, description="How long ingest waits for the embedding service to come back before retrying later."
    )
    ingest_ready_at: Literal["vectors", "words"] = Field(
        "words",
        description=(
            "When a document becomes `ready`: once its chunks are stored, searchable by their words (and by "
            "meaning through question-time vectors of its best word matches) while the chunk vectors follow in "
            "the background, or only once its chunk vectors are stored too (docs/ingest.md has the numbers)."
        ),
    )
    vectors_retries: int = Field(
        2, ge=0, le=20, description="Times a ready document's dead-lettered vectors phase is queued again, each round"
        " with PP_MAX_DELIVER attempts; then it stays searchable by words only (docs/ingest.md).",
    )
    search_unembedded_candidates: int = Field(
        20,
        ge=0,
        le=100,
        description=(
            "Chunks still waiting for their vector that a search embeds at question time (its best full-text "
            "matches) so they rank by meaning beside stored vectors; 0 = they rank by words only."
        ),
    )
    ingest_sentence_vectors: bool = Field(
        True, description="Embed and store each chunk's sentences at ingest (the offline engine ranks them)."
    )

    chunk_size: int = Field(1000, description="Target characters per chunk.")
    chunk_overlap: int = Field(150, description="Characters shared by neighbouring chunks.")
    max_upload_bytes: int = Field(50 * 1024 * 1024, description="Largest accepted upload.")
    max_request_bytes: int = Field(1024 * 1024, description="Largest JSON request body (uploads excepted).")
    max_pages: int = Field(2000, description="Largest accepted page count.")
    ocr_languages: str = Field(
        "eng",
        pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$",
        description="Tesseract languages for pages without text, joined by '+' (e.g. eng+deu); docs/ingest.md.",
    )
    ocr_dpi: int = Field(300, ge=72, le=600, description="Resolution a page without text is rendered at for OCR.")
    ocr_max_pages: int = Field(
        100,
        ge=0,
        le=5000,
        description=(
            "Pages without text read by OCR per document, the first ones (seconds a page); the rest are named in "
            "the document's warning. 0 = no OCR."
        ),
    )

    per_doc_k: int = Field(4, description="Chunks per document in balanced retrieval.")
    total_k: int = Field(15, description="Chunks per search at most.")
    hybrid_search: bool = Field(False, description="Default of vector + full-text fusion (RRF) in searches.")
    tavily_api_key: str | None = Field(
        None,
        validation_alias=AliasChoices("PP_TAVILY_API_KEY", "TAVILY_API_KEY"),
        description="Tavily key (TAVILY_API_KEY also accepted); unset → web search unavailable.",
    )
    tavily_base_url: str | None = Field(None, description="Tavily API base URL (default: the public API).")
    web_results: int = Field(3, ge=1, le=10, description="Web results fetched per search.")
    similarity_thresholds: dict[str, SimilarityThresholds] = Field(
        default_factory=dict,
        description="Per-embedding-model thresholds (JSON), merged over SIMILARITY_THRESHOLDS.",
    )
    # Unset → the value for `embedding_model`; read them through `similarity`, which resolves that.
    min_similarity: float | None = Field(None, description="Adaptive-k floor (cosine); unset → the model's.")
    confidence_high: float | None = Field(None, description="Mean similarity for a high tier; unset → the model's.")
    confidence_medium: float | None = Field(None, description="Mean similarity for medium; unset → the model's.")
    sentence_answers: float | None = Field(None, description="A sentence this similar answers; unset → the model's.")
    sentence_on_topic: float | None = Field(None, description="No sentence this similar: low; unset → the model's.")

    embedded_pg_shared_buffers: str = Field(
        "512MB",
        pattern=r"^\d+(kB|MB|GB)$",
        description="shared_buffers of the embedded Postgres (enough to keep a 100k-chunk HNSW index in memory).",
    )
    support_confidence_threshold: float = Field(
        0.7, ge=0, le=1, description="Widget answers graded below this are escalated to a human agent."
    )
    support_cache_similarity: float = Field(
        0.9, ge=0, le=1, description="Cosine similarity from which a widget question reuses a cached answer."
    )
    widget_token_ttl_s: int = Field(24 * 3600, ge=60, description="Lifetime of a widget customer session token.")

    llm_provider: Literal["auto", "offline", "openai"] = Field(
        "auto", description="LLM provider; `auto` uses OpenAI when a key is set, else the offline engine."
    )
    openai_api_key: str | None = Field(
        None,
        validation_alias=AliasChoices("PP_OPENAI_API_KEY", "OPENAI_API_KEY"),
        description="OpenAI (or compatible server) key; OPENAI_API_KEY also accepted.",
    )
    openai_base_url: str | None = Field(
        None,
        validation_alias=AliasChoices("PP_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
        description="OpenAI-compatible base URL (vLLM, Ollama, LiteLLM, llama.cpp); OPENAI_BASE_URL accepted.",
    )
    llm_small_model: str = Field("gpt-4o-mini", description="Model of routine tasks (see MODEL_MAP).")
    audit_max_requirements: int = Field(
        40,
        ge=1,
        le=500,
        description="Requirements (or audited statements) one audit checks; the report names any past it.",
    )
    llm_large_model: str = Field("gpt-4o", description="Model of audit and holistic compare.")
    llm_timeout_s: float = Field(60.0, gt=0, description="Seconds one model request may take.")
    llm_retries: int = Field(2, ge=0, le=5, description="Retries on 429, 5xx, timeouts and connection errors.")
    llm_backoff_s: float = Field(0.5, ge=0, description="First retry delay; doubles on each retry.")
    llm_structured_output: Literal["auto", "json_schema", "json_object", "prompt"] = Field(
        "auto",
        description="How structured answers are asked for: `auto` tries json_schema, then json_object with the"
        " schema, then the schema in the prompt, and remembers per model what the server accepted"
        " (docs/model-servers.md).",
    )
    llm_unusable_cooldown_s: float = Field(
        600.0,
        ge=0,
        description="After a model's answer for a task stayed unusable through the corrective retry, seconds"
        " during which that task goes straight to the offline engine (a small model that cannot write the"
        " task's JSON is not asked again on every turn).",
    )
    llm_system_prompt: Literal["system", "user"] = Field(
        "system",
        description="Where the instructions go: a `system` message, or (`user`) the start of the first user"
        " message, for chat formats that drop system messages (llama-cpp-python's `gemma`; docs/model-servers.md).",
    )
    llm_max_output_tokens: int = Field(
        2048,
        ge=16,
        description="Ceiling on any one answer's tokens (each task has its own, smaller cap); a model that"
        " does not stop is cut here.",
    )
    llm_cooldown_s: float = Field(
        30.0,
        ge=0,
        description="After a model stayed unreachable through its retries, seconds during which its tasks go"
        " straight to the offline engine instead of waiting on it again.",
    )
    # At the model's measured pace: a step that would overrun is done offline, an answer is fitted (0: off).
    llm_step_budget_s: float = Field(8.0, ge=0, description="Seconds a pipeline step may take (model-servers.md).")
    llm_answer_budget_s: float = Field(20.0, ge=0, description="Seconds an answer or audit may take on the model.")
    llm_lessons_file: Path | None = Field(
        Path.home() / ".cache" / "policypal" / "model-lessons.json",
        description="What was learned per server and model, for every worker and the next process; empty: none.",
    )
    offline_delta_interval_s: float = Field(
        0.0,
        ge=0,
        le=2,
        description="Pause between the offline engine's streamed deltas, so it streams at a model's pace"
        " (demos, the browser tests of streaming, stopping and reloading); 0 streams at once.",
    )
    llm_prices: dict[str, tuple[float, float]] = Field(
        default_factory=dict,
        description="Extra or overriding prices, JSON {model: [USD per 1M input tokens, per 1M output]}.",
    )

    demo_tenant_id: str = Field("00000000-0000-4000-8000-000000000001")
    demo_user_id: str = Field("00000000-0000-4000-8000-0000000000aa")
    sample_document: Path | None = Field(
        Path("examples/data-retention-policy.pdf"),
        description="File put in the demo user's library on the first `up` of a data directory; empty = none.",
    )
    demo_user_name: str = Field(
        "Demo User", min_length=1, max_length=200, description="The demo user's display name in the workspace."
    )
    log_level: str = Field("INFO", description="Log level of every process.")
    health_port: int = Field(
        0, ge=0, le=65535, description="Port of a worker's /healthz, /readyz and /metrics server; 0 = none."
    )
    health_host: str = Field("127.0.0.1", description="Bind address of the worker health server (0.0.0.0 in a pod).")
    scaling_metrics_interval_s: float = Field(
        5.0, gt=0, description="How often a worker refreshes its consumers' backlog gauges for /metrics."
    )

    access_token_ttl_s: int = Field(900, ge=60, description="Lifetime of the access JWT a sign-in returns.")
    refresh_token_ttl_s: int = Field(
        30 * 24 * 3600, ge=300, description="Lifetime of a refresh token (rotated on use)."
    )
    invite_ttl_s: int = Field(7 * 24 * 3600, ge=300, description="How long an invite link can be accepted.")
    signup_tenant_id: str | None = Field(
        "00000000-0000-4000-8000-000000000001",
        description="Tenant the public sign-up page creates accounts in (default: the demo tenant); empty → closed.",
    )
    signin_free_failures: int = Field(
        5, ge=1, description="Failed sign-ins per account or address before each further try must wait."
    )
    signin_base_delay_s: float = Field(1.0, gt=0, description="First throttle delay; it doubles with each failure.")
    signin_max_delay_s: float = Field(300.0, gt=0, description="Longest throttle delay.")
    oidc_providers: dict[str, OidcProvider] = Field(
        default_factory=dict, description="Single sign-on per tenant: JSON {tenant_id: provider} (docs/user-guide.md)."
    )

    @field_validator("sample_document", "llm_lessons_file", mode="before")
    @classmethod
    def _no_path_when_empty(cls, value: object) -> object:
        """An empty PP_SAMPLE_DOCUMENT or PP_LLM_LESSONS_FILE turns it off (not the current directory)."""
        return None if value == "" else value

    @property
    def similarity(self) -> SimilarityThresholds:
        """The thresholds in force: each one set here (`PP_MIN_SIMILARITY`, …), else the table entry of
        `embedding_model`. Read at each use, so a copy with other values (`model_copy`) reads its own."""
        overrides = {
            name: value for name in SimilarityThresholds.model_fields if (value := getattr(self, name)) is not None
        }
        return self.thresholds().model_copy(update=overrides)

    def thresholds(self, embedding_model: str | None = None) -> SimilarityThresholds:
        """The calibrated thresholds of an embedding model (default: the configured one)."""
        table = {**SIMILARITY_THRESHOLDS, **self.similarity_thresholds}
        return table.get(embedding_model or self.embedding_model) or table[DEFAULT_EMBEDDING_MODEL]

    @property
    def admin_url(self) -> str | None:
        return self.database_admin_url or self.database_url

    @property
    def secret_file(self) -> Path:
        return self.data_dir / "secret_key"

    def jwt_secret(self) -> str:
        """The configured key, else the one `up` generated for this data directory."""
        if self.secret_key:
            return self.secret_key
        if self.secret_file.exists():
            return self.secret_file.read_text().strip()
        raise RuntimeError("no JWT secret: set PP_SECRET_KEY or run `policypal up` once to generate one")

    def ensure_secret_file(self) -> None:
        if self.secret_key or self.secret_file.exists():
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.secret_file.write_text(secrets.token_urlsafe(48))
        self.secret_file.chmod(0o600)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings singleton, built on first use."""
    return Settings()
