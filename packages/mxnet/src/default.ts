/** The one DefaultSession of this module instance (see session.ts for why it exists). */
import { DefaultSession } from './session.js';

export const session = new DefaultSession();
