import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/errors';
import { Persona } from '../personas';
import { TestScenario } from './agent-test.entity';
import type { ScenarioDefinition } from './agent-test-types';
import { SCENARIO_LIMITS, type ScenarioInput } from './scenario.schemas';

/** The account's persona, or 404 (another account's persona is "not found"). */
export async function ownedPersona(
  em: EntityManager,
  accountId: string,
  personaId: string,
): Promise<Persona> {
  const persona = await em.findOne(Persona, { id: personaId, account: accountId });
  if (!persona) throw notFound('Persona');
  return persona;
}

export function scenarioView(s: TestScenario) {
  const { turns, simulatedCaller, mocks, expectations } = s.definition;
  return {
    id: s.id,
    personaId: s.personaId,
    name: s.name,
    ...(turns ? { turns } : {}),
    ...(simulatedCaller ? { simulatedCaller } : {}),
    mocks: mocks ?? {},
    expectations: expectations ?? [],
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

const definitionOf = ({ name: _name, ...definition }: ScenarioInput): ScenarioDefinition => definition;

export async function listScenarios(em: EntityManager, accountId: string, personaId: string) {
  await ownedPersona(em, accountId, personaId);
  const rows = await em.find(
    TestScenario,
    { account: accountId, personaId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return rows.map(scenarioView);
}

export async function createScenario(
  em: EntityManager,
  accountId: string,
  personaId: string,
  input: ScenarioInput,
) {
  return em.transactional(async (tem) => {
    // the persona's row, locked, serializes concurrent creations against the per-persona limit
    const persona = await tem.findOne(
      Persona,
      { id: personaId, account: accountId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!persona) throw notFound('Persona');
    const count = await tem.count(TestScenario, { account: accountId, personaId });
    if (count >= SCENARIO_LIMITS.scenariosPerPersona)
      throw conflict(`A persona has at most ${SCENARIO_LIMITS.scenariosPerPersona} test scenarios`);
    const scenario = tem.create(TestScenario, {
      account: accountId,
      personaId,
      name: input.name,
      definition: definitionOf(input),
    });
    tem.persist(scenario);
    return scenarioView(scenario);
  });
}

export async function findScenario(em: EntityManager, accountId: string, personaId: string, id: string) {
  const scenario = await em.findOne(TestScenario, { id, account: accountId, personaId });
  if (!scenario) throw notFound('Test scenario');
  return scenario;
}

export async function updateScenario(
  em: EntityManager,
  accountId: string,
  personaId: string,
  id: string,
  input: ScenarioInput,
) {
  const scenario = await findScenario(em, accountId, personaId, id);
  scenario.name = input.name;
  scenario.definition = definitionOf(input);
  await em.flush();
  return scenarioView(scenario);
}

export async function deleteScenario(em: EntityManager, accountId: string, personaId: string, id: string) {
  const deleted = await em.nativeDelete(TestScenario, { id, account: accountId, personaId });
  if (!deleted) throw notFound('Test scenario');
  return { deleted: true as const, id };
}
