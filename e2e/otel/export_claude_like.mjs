// Posts a Claude Code-shaped trace (a spawning tool.execution span and a
// subagent's llm_request span) with the official OpenTelemetry JS SDK's
// OTLP/HTTP protobuf exporter, gzipped, to OTEL_EXPORTER_OTLP_ENDPOINT (and
// OTEL_EXPORTER_OTLP_HEADERS when the server wants its token). Exits 0 only
// when the exporter reports success. Used by server/tests/otlp_sdk.rs;
// the SDK is installed with the e2e packages (e2e/package.json).
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

const [session, toolUseId] = process.argv.slice(2);
const collected = new InMemorySpanExporter();
const provider = new TracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'claude-code' }),
  spanProcessors: [new SimpleSpanProcessor({ exporter: collected })],
});
const tracer = provider.getTracer('com.anthropic.claude_code.tracing');
const spawn = tracer.startSpan('claude_code.tool.execution', {
  attributes: { 'session.id': session, tool_use_id: toolUseId },
});
tracer.startSpan('claude_code.llm_request', {
  attributes: {
    'session.id': session, agent_id: 'a_sdk_js', query_source_safe: 'agent.builtin.Plan', input_tokens: 12, output_tokens: 3,
  },
}, trace.setSpan(context.active(), spawn)).end();
spawn.end();
// The processor hands ended spans on asynchronously: wait for them.
await provider.forceFlush();
const spans = collected.getFinishedSpans();
if (spans.length !== 2) throw new Error(`expected 2 finished spans, got ${spans.length}`);
new OTLPTraceExporter({ compression: 'gzip' }).export(spans, (result) => {
  console.log(result.code === 0 ? 'SUCCESS' : `FAILURE: ${result.error?.message}`);
  process.exit(result.code === 0 ? 0 : 1);
});
