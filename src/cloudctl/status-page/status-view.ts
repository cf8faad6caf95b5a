// One view of the status page: its path, its place in the navigation, and how it renders its
// sections for a user. Views are registered in views/index.ts; the routes, the navigation and the
// live updates are made from that list, so a new view is one file and one line there.
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

export interface ViewDefinition<P extends z.ZodType> {
  /** fastify syntax, under /status: `/status/tasks/:id`. */
  url: string;
  /** The label in the navigation; absent for a detail view reached by links. */
  nav?: string;
  /** The path parameters, for a detail view. */
  params?: P;
  /** Throws HttpError FORBIDDEN or NOT_FOUND (the refusal and error pages) as the API would. */
  render(context: ViewContext, params: z.output<P>): Promise<RenderedView>;
}

/** A view with its parameter type erased, to be listed beside others. */
export interface StatusView {
  url: string;
  nav?: string;
  params?: z.ZodType;
  render(context: ViewContext, params: unknown): Promise<RenderedView>;
}

export function defineView<P extends z.ZodType>(definition: ViewDefinition<P>): StatusView {
  // The route parses the parameters with `params` before render sees them, so the types agree.
  return definition as unknown as StatusView;
}
