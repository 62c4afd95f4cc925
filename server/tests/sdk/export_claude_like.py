"""Posts a Claude Code-shaped trace (a spawning tool.execution span and a
subagent's llm_request span) with the official OpenTelemetry Python SDK's
OTLP/HTTP protobuf exporter, gzipped, to OTEL_EXPORTER_OTLP_ENDPOINT (and
OTEL_EXPORTER_OTLP_HEADERS when the server wants its token). Exits 0 only
when the exporter reports success. Used by server/tests/otlp_sdk.rs."""

import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

session = sys.argv[1]
collected = InMemorySpanExporter()
provider = TracerProvider(resource=Resource.create({"service.name": "claude-code"}))
provider.add_span_processor(SimpleSpanProcessor(collected))
tracer = provider.get_tracer("com.anthropic.claude_code.tracing")

with tracer.start_as_current_span(
    "claude_code.tool.execution",
    attributes={"session.id": session, "tool_use_id": "toolu_sdk_1"},
):
    with tracer.start_as_current_span(
        "claude_code.llm_request",
        attributes={
            "session.id": session,
            "agent_id": "a_sdk",
            "query_source_safe": "agent.builtin.Plan",
            "input_tokens": 12,
            "output_tokens": 3,
        },
    ):
        pass

exporter = OTLPSpanExporter(compression=Compression.Gzip)
result = exporter.export(collected.get_finished_spans())
print(result)
sys.exit(0 if result == SpanExportResult.SUCCESS else 1)
