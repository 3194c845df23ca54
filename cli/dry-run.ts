/**
 * `--dry-run`: the plan of a run, and nothing sent to the target. It reads and
 * checks what a run reads and checks before its first request
 * (cli/run-setup.ts: the report directory, the waivers, the connection's
 * certificates, proxy and headers, every engine setting), so that it refuses
 * what the run would, and says how the run would connect as its header will
 * (TLS verification, proxy, client certificate, the config file read). What it does not do: create the report directory (it
 * checks that the run could), write a report, or connect to the target or its
 * proxy, so an unreachable target, a certificate the server refuses and a
 * wrong key are found only by the run's preflight.
 *
 * How many requests each check sends and how many animals it creates is not declared anywhere: the plan rehearses
 * the same run (seed, runs per property, selection) against the embedded
 * reference implementation with an empty store, in this process, on loopback,
 * and counts. Against a store that already holds animals the setup phase
 * creates fewer (at least 16); against a target that fails, property checks
 * shrink and send more.
 */
import { randomBytes } from 'node:crypto';
import { startReference } from '../reference/server.js';
import { rules } from '../spec/rules.js';
import { PHASES, runConformance } from '../suites/engine.js';
import { resolve as resolveOptions } from '../suites/options.js';
import { ANSWERED_THRESHOLD } from '../suites/load/profiles.js';
import { EXIT } from '../result/policy.js';
import type { Io } from './io.js';
import type { CliConfig } from './options.js';
import { setUpRun } from './run-setup.js';
import { headerLines } from './transport.js';

/** Where the embedded reference will be, for checking the settings: always on loopback, its port chosen when it starts. */
const EMBEDDED_TARGET = 'http://127.0.0.1/v1';

/** What the rehearsal counted for one check. */
interface CheckPlan {
  id: string;
  title: string;
  phase: string;
  requests: number;
  creates: number;
  skipped?: string;
}

/** Prints the plan of `config`'s run to stdout; sends nothing to the target. Exit 0. */
export async function dryRun(config: CliConfig, io: Io): Promise<number> {
  const rehearsalKey = `dry-run-${randomBytes(12).toString('hex')}`;
  const { settings } = await setUpRun(config, io, { createReportDir: false });
  const resolved = resolveOptions({ ...settings, baseUrl: config.baseUrl ?? EMBEDDED_TARGET, apiKey: config.apiKey ?? rehearsalKey });
  const target = config.embedded ? 'the embedded reference implementation (started by the run)' : resolved.target;
  const { profile, seed } = resolved;

  const reference = await startReference({ apiKey: rehearsalKey });
  // Each check's phase comes with its end (events go out in plan order); its requests are counted as they are sent, whenever that is.
  const checks = new Map<string, CheckPlan>([['preflight', { id: 'preflight', title: '', phase: 'preflight', requests: 0, creates: 0 }]]);
  const ended: CheckPlan[] = [];
  const planOf = (id: string): CheckPlan => {
    let plan = checks.get(id);
    if (!plan) checks.set(id, (plan = { id, title: '', phase: 'preflight', requests: 0, creates: 0 }));
    return plan;
  };
  let result;
  try {
    result = await runConformance({
      baseUrl: reference.url,
      apiKey: rehearsalKey,
      seed,
      numRuns: resolved.numRuns,
      strict: resolved.strict,
      timeoutMs: resolved.timeoutMs,
      only: config.only,
      skip: config.skip,
      load: 'none',
      onEvent: (event) => {
        if (event.type === 'check-end') {
          const plan = planOf(event.check);
          Object.assign(plan, { title: event.title, phase: event.phase }, event.skipped ? { skipped: event.skipped } : {});
          ended.push(plan);
        }
      },
      onExchange: (x) => {
        const plan = planOf(x.meta.check);
        plan.requests++;
        if (x.request.method === 'POST' && x.response?.status === 201) plan.creates++;
      },
    });
  } finally {
    await reference.close();
  }

  const selected = result.rules.filter((r) => (config.only.length === 0 || config.only.includes(r.id)) && !config.skip.includes(r.id));
  const must = selected.filter((r) => r.severity === 'MUST').length;
  const lines = [
    `Dry run: nothing is sent to ${target}.`,
    '',
    `target   ${target}`,
    `seed     ${config.seed ?? `random (chosen when the run starts; this plan rehearsed seed ${seed})`} · ${resolved.numRuns} runs per property check · timeout ${resolved.timeoutMs} ms${resolved.strict ? ' · strict' : ''}${config.maxFailures ? ` · stops after ${config.maxFailures} failing rules` : ''}${config.rateLimit ? ` · at most ${config.rateLimit} requests/s` : ''}`,
    `rules    ${selected.length} of ${rules.length} (${must} MUST, ${selected.length - must} SHOULD)${config.only.length ? ` · only ${config.only.join(',')}` : ''}${config.skip.length ? ` · skip ${config.skip.join(',')}` : ''}`,
    // What the run's header will say of how it reaches the target.
    ...headerLines(
      {
        target: config.embedded ? undefined : resolved.target,
        connection: settings.connection ?? {},
        files: config.connection,
        sources: settings.sources ?? { flags: [], environment: [] },
      },
      false,
    ),
    '',
    'Phases, checks and requests (counted by rehearsing this run against the embedded reference implementation with an empty store; a store that already holds animals needs fewer in setup, a failing target more while properties shrink):',
  ];
  const byPhase = new Map<string, CheckPlan[]>(['preflight', ...PHASES].map((name) => [name, []]));
  // Plan order: the preflight, then the checks as they ended in plan order.
  for (const plan of new Set([checks.get('preflight')!, ...ended, ...checks.values()])) byPhase.get(plan.phase)?.push(plan);
  for (const [name, plans] of byPhase) if (plans.length === 0) byPhase.delete(name);
  let requests = 0;
  let creates = 0;
  for (const [name, plans] of byPhase) {
    const sent = plans.reduce((n, p) => n + p.requests, 0);
    const created = plans.reduce((n, p) => n + p.creates, 0);
    requests += sent;
    creates += created;
    const run = plans.filter((p) => !p.skipped).length;
    lines.push(
      `  ${name.padEnd(12)} ${String(run).padStart(2)} check${run === 1 ? ' ' : 's'}  ~${String(sent).padStart(5)} requests  ~${String(created).padStart(4)} animals created`,
    );
    for (const plan of plans) {
      if (plan.id === 'preflight') continue;
      lines.push(
        `      ${plan.skipped ? '-' : '·'} ${plan.id.padEnd(40)} ${plan.skipped ? `not run (${plan.skipped})` : `~${plan.requests} requests${plan.creates ? `, ${plan.creates} animals` : ''}`}`,
      );
    }
  }
  lines.push(
    `  ${'total'.padEnd(12)}              ~${String(requests).padStart(5)} requests  ~${String(creates).padStart(4)} animals created (named "pctest-xxxx …"; the document has no delete)`,
  );
  lines.push('');
  if (profile) {
    const shape =
      profile.kind === 'closed'
        ? `closed loop, ${profile.connections} connections for ${profile.durationSec} s: as many requests as the target answers in that time`
        : profile.kind === 'rate'
          ? `fixed rate, ${profile.rate} requests/s for ${profile.durationSec} s: about ${Math.round(profile.rate * profile.durationSec)} requests`
          : `ramp, ${profile.stages.join(', ')} connections, ${profile.stageSec} s each (${profile.stages.length * profile.stageSec} s at most), stopping at the first stage that breaks a threshold`;
    const weights = profile.mix.listPets + profile.mix.getPet + profile.mix.createPet;
    const share = weights > 0 ? Math.round((profile.mix.createPet / weights) * 100) : 0;
    lines.push(
      `Load profile "${config.load}": ${shape}; at most ${profile.maxRequests} requests; it creates 20 animals first, then ${share}% of its requests create one.`,
    );
    // Every threshold the run judges: the profile's own, then the one every profile has (answered, load/profiles.ts).
    lines.push(`  thresholds: ${[...resolved.thresholds, ANSWERED_THRESHOLD].map((t) => t.expression).join(', ')}`);
  } else {
    lines.push('Load: none.');
  }
  lines.push(
    '',
    `Reports: ${config.reporter.join(', ')} → ${config.reportDir}`,
    '',
    'Nothing was sent. Run the same command without --dry-run to test the target.',
  );
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.conformant;
}
