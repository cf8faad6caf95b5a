// The status page's views, in navigation order. A view is one file and one line here: its routes,
// its navigation link and its live updates come from this list (see docs/status-page.md).
import type { StatusView } from '../status-view.ts';
import { accountView } from './account-view.ts';
import { accountsView } from './accounts-view.ts';
import { agentsView } from './agents-view.ts';
import { applicationView } from './application-view.ts';
import { applicationsView } from './applications-view.ts';
import { clientsView } from './clients-view.ts';
import { deploymentView } from './deployment-view.ts';
import { deploymentsView } from './deployments-view.ts';
import { planView } from './plan-view.ts';
import { taskView } from './task-view.ts';
import { tasksView } from './tasks-view.ts';

export const VIEWS: readonly StatusView[] = [
  applicationsView,
  applicationView,
  agentsView,
  accountsView,
  accountView,
  tasksView,
  taskView,
  deploymentsView,
  deploymentView,
  planView,
  clientsView,
];
