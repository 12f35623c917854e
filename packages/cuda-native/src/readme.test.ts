import { describeReadmeExamples } from '@mx/test-kit';

describeReadmeExamples(new URL('..', import.meta.url));
