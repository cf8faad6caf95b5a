// Endpoints of the API we mirror that mean nothing for an orchestrator: elastic IPs, instance types,
// networks, reservation reports, serverless functions. Clients call them all
// the same (UIs load them on start), so they answer valid, empty results, after checking their
// required parameters like any other route.
import { z } from 'zod';
import { defineRoute, type Route } from '../http/index.ts';

const TAG = 'inapplicable';

/** A repeated query parameter (`?filters=a&filters=b`); one occurrence arrives as a plain string. */
const repeated = (description: string) =>
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()).min(1)).describe(description);

const elasticIpSchema = z
  .object({
    accountName: z.string(),
    address: z.string(),
    attachedToId: z.string(),
    region: z.string(),
    type: z.string(),
  })
  .describe('ElasticIp');
const instanceTypeSchema = z.object({ name: z.string() }).describe('InstanceType');
const networkSchema = z
  .object({
    account: z.string(),
    cloudProvider: z.string(),
    id: z.string(),
    name: z.string(),
    region: z.string(),
  })
  .describe('Network');
const reservationReportSchema = z.record(z.string(), z.unknown()).describe('ReservationReport');
const functionSchema = z
  .object({ account: z.string(), cloudProvider: z.string(), region: z.string() })
  .describe('Function');

const filtersQuery = z.object({ filters: repeated('report filters; none apply to an orchestrator') });

export function inapplicableRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/elasticIps/:account',
      summary: 'Elastic IPs of an account: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ account: z.string().min(1) }),
        querystring: z.object({ region: z.string().min(1).describe('the region') }),
        response: { 200: z.array(elasticIpSchema) },
      },
      handler: async () => [],
    }),
    defineRoute({
      method: 'GET',
      url: '/instanceTypes',
      summary: 'Instance types: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: { response: { 200: z.array(instanceTypeSchema) } },
      handler: async () => [],
    }),
    defineRoute({
      method: 'GET',
      url: '/networks',
      summary: 'Networks by cloud provider: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: { response: { 200: z.record(z.string(), z.array(networkSchema)) } },
      handler: async () => ({}),
    }),
    defineRoute({
      method: 'GET',
      url: '/networks/:cloudProvider',
      summary: 'Networks of a cloud provider: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ cloudProvider: z.string().min(1) }),
        response: { 200: z.array(networkSchema) },
      },
      handler: async () => [],
    }),
    defineRoute({
      method: 'GET',
      url: '/reports/reservation',
      summary: 'Reservation reports: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: { querystring: filtersQuery, response: { 200: z.array(reservationReportSchema) } },
      handler: async () => [],
    }),
    defineRoute({
      method: 'GET',
      url: '/reports/reservation/:name',
      summary: 'A reservation report: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ name: z.string().min(1) }),
        querystring: filtersQuery,
        response: { 200: z.array(reservationReportSchema) },
      },
      handler: async () => [],
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/functions',
      summary: 'Serverless functions of an application: none for an orchestrator',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ application: z.string().min(1) }),
        response: { 200: z.array(functionSchema) },
      },
      handler: async () => [],
    }),
  ];
}
