// Accounts assigned to agents at run time (dynamic accounts).
export { type AccountAssignment, AccountAssignments } from './account-assignments.ts';
