/** Runs the README's ```ts run examples and checks what they print (see @mx/test-kit). */
import { describeReadmeExamples } from '@mx/test-kit';

describeReadmeExamples(new URL('..', import.meta.url));
