// One view of the status page: its path, its place in the navigation, how it renders its sections for
// a user, and the forms it offers (actions). Views are registered in views/index.ts; the routes, the
// navigation, the live updates and the forms' POST routes are made from that list, so a new view is
// one file and one line there.
import type { z } from 'zod';
import type { Principal } from '../auth/index.ts';
import type { SafeHtml } from './safe-html.ts';
import type { StatusSources } from './status-sources.ts';

/** A part of a page that live updates replace as a whole; `id` is stable across renders. */
export interface Section {
  id: string;
  title: string;
  body: SafeHtml;
}

export interface RenderedView {
  /** The page's heading and document title. */
  title: string;
  sections: Section[];
}

export interface ViewContext {
  user: Principal;
  sources: StatusSources;
  /** The instant the page describes: relative times are computed from it. */
  now: Date;
}

/**
 * A form a view offers, posted to `<the view's path>/<name>`: the route refuses a form from another
 * site, parses the fields with `form`, runs it as the signed-in user, and sends the browser back to
 * the view (303). `run` checks permissions itself, as the API would, and throws HttpError to refuse.
 * A `run` that returns a page is answered with it instead (200, not live, never cached): for what
 * can be shown once only, such as a new secret, which must not wait in a page the browser goes back to.
 */
export interface ActionDefinition<P, F extends z.ZodType> {
  form: F;
  run(context: ViewContext, params: P, form: z.output<F>): Promise<RenderedView | undefined>;
}

/** An action with its types erased, to be listed beside others. */
export interface ViewAction {
  form: z.ZodType;
  run(context: ViewContext, params: unknown, form: unknown): Promise<RenderedView | undefined>;
}

/** `params` is the view's, for the types only. */
export function defineAction<P extends z.ZodType, F extends z.ZodType>(
  _params: P,
  definition: ActionDefinition<z.output<P>, F>,
): ViewAction {
  // The route parses the parameters and the form with the view's and the action's schemas first.
  return definition as unknown as ViewAction;
}

export interface ViewDefinition<P extends z.ZodType> {
  /** fastify syntax, under /status: `/status/tasks/:id`. */
  url: string;
  /** The label in the navigation; absent for a detail view reached by links. */
  nav?: string;
  /** The path parameters, for a detail view. */
  params?: P;
  /** Throws HttpError FORBIDDEN or NOT_FOUND (the refusal and error pages) as the API would. */
  render(context: ViewContext, params: z.output<P>): Promise<RenderedView>;
  /** The forms of the view, by name: `approve` is posted to `/status/deployments/:id/approve`. */
  actions?: Readonly<Record<string, ViewAction>>;
  /**
   * A view kept live by GET /watch instead of asking for its sections every few seconds: the watch's
   * query for the page (`{application: 'shop'}`; `{}` for everything the user may read).
   */
  watch?(params: z.output<P>): Record<string, string>;
}

/** A view with its parameter type erased, to be listed beside others. */
export interface StatusView {
  url: string;
  nav?: string;
  params?: z.ZodType;
  render(context: ViewContext, params: unknown): Promise<RenderedView>;
  actions?: Readonly<Record<string, ViewAction>>;
  watch?(params: unknown): Record<string, string>;
}

export function defineView<P extends z.ZodType>(definition: ViewDefinition<P>): StatusView {
  // The route parses the parameters with `params` before render sees them, so the types agree.
  return definition as unknown as StatusView;
}
