// The operation channel's contract, as both programs rely on it: every type pairs a payload schema
// with a result schema, stored calls are checked against their type, unknown codes read as FAILED,
// and the compiler refuses a send whose payload is not its type's (checked by `npm run check`).
import { describe, expect, it } from 'vitest';
import {
  checkPayload,
  checkResult,
  describeFailure,
  OPERATION_ERROR_CODES,
  OPERATION_TYPES,
  OPERATIONS,
  type OperationCall,
  type OperationPayload,
  operationCallSchema,
  operationErrorCode,
} from '../../src/contract/index.ts';

describe('the operation channel contract', () => {
  it('lists every operation type, each with a payload and a result schema', () => {
    expect([...OPERATION_TYPES].sort()).toEqual(
      [
        'delete',
        'deleteObjects',
        'deleteSelected',
        'deploy',
        'describeAccount',
        'events',
        'get',
        'httpRequest',
        'list',
        'logs',
        'patch',
        'plan',
        'rollout',
        'runJob',
        'scale',
        'serviceProxy',
        'versions',
      ].sort(),
    );
    for (const type of OPERATION_TYPES) {
      expect(typeof OPERATIONS[type].payload.safeParse).toBe('function');
      expect(typeof OPERATIONS[type].result.safeParse).toBe('function');
    }
  });

  it('checks a payload against its type and fills its defaults', () => {
    const checked = checkPayload('delete', { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'p' });
    expect(checked).toEqual({
      ok: true,
      value: {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: 'ns',
        name: 'p',
        propagationPolicy: 'Background',
        wait: false,
      },
    });
    expect(
      checkPayload('scale', { kind: 'Deployment', namespace: 'ns', name: 'web', replicas: -1 }),
    ).toMatchObject({
      ok: false,
      path: 'replicas',
    });
  });

  it('checks a result against its type, naming the field that does not match', () => {
    expect(checkResult('scale', { replicas: 3 })).toEqual({ ok: true, value: { replicas: 3 } });
    const wrong = checkResult('list', { items: [{ metadata: {} }, 'not an object'] });
    expect(wrong).toMatchObject({ ok: false, path: 'items.1' });
    expect(checkResult('deploy', undefined)).toMatchObject({ ok: false, path: '' });
  });

  it('passes Kubernetes objects in results through unchanged, unknown fields included', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { k: 'v' },
      extra: 1,
    };
    const checked = checkResult('get', { object });
    expect(checked.ok && checked.value.object).toBe(object);
  });

  it('accepts a stored call only with a known type and a payload of that type', () => {
    const call = {
      type: 'scale',
      payload: { kind: 'Deployment', namespace: 'ns', name: 'web', replicas: 2 },
    };
    expect(operationCallSchema.parse(call)).toEqual(call);
    expect(operationCallSchema.safeParse({ type: 'reboot', payload: {} }).success).toBe(false);
    expect(operationCallSchema.safeParse({ type: 'scale', payload: { replicas: 2 } }).success).toBe(false);
    expect(operationCallSchema.safeParse(null).success).toBe(false);
  });

  it('reads a code it does not know (a newer agent) as FAILED', () => {
    expect(operationErrorCode('NOT_FOUND')).toBe('NOT_FOUND');
    expect(operationErrorCode('RESULT_TOO_LARGE')).toBe('RESULT_TOO_LARGE');
    expect(operationErrorCode('SOMETHING_NEW')).toBe('FAILED');
    expect(operationErrorCode('')).toBe('FAILED');
    expect(OPERATION_ERROR_CODES).toContain('RESULT_TOO_LARGE');
  });

  it('describes a failure as people read it: code, message, and the field when there is one', () => {
    expect(describeFailure({ code: 'NOT_FOUND', message: 'pods "p" not found' })).toBe(
      'NOT_FOUND: pods "p" not found',
    );
    expect(describeFailure({ code: 'INVALID_PAYLOAD', message: 'scale: too small', path: 'replicas' })).toBe(
      'INVALID_PAYLOAD: scale: too small (at replicas)',
    );
  });

  it('types sends: a payload of another type does not compile', () => {
    const good: OperationCall = { type: 'logs', payload: { namespace: 'ns', pod: 'p' } };
    // @ts-expect-error a scale payload needs kind, namespace, name and replicas
    const missing: OperationPayload<'scale'> = { replicas: 1 };
    // @ts-expect-error a logs call cannot carry a deploy payload
    const crossed: OperationCall = { type: 'logs', payload: { manifests: [] } };
    // @ts-expect-error no such operation type
    const unknown: OperationCall = { type: 'reboot', payload: {} };
    expect([good, missing, crossed, unknown]).toHaveLength(4);
  });
});
